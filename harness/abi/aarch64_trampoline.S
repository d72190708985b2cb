/*
 * The ABI check's trampoline (AAPCS64): calls a kernel entry point with
 * every callee-saved register holding a chosen value, then records what
 * the registers and the stack pointer hold after.
 *
 *   void kc_abi_call_aarch64(void (*fn)(void), const uint64_t args[8],
 *                            const uint64_t fill[19], uint64_t after[20]);
 *
 *   fill[0..10]:  the values of x19-x29 at the call;
 *   fill[11..18]: the values of d8-d15 (the low halves of v8-v15);
 *   after[0..18]: the same registers after the call (must equal fill);
 *   after[19]:    SP after the call minus SP before it (must be 0).
 * SP and the `after` pointer wait in .bss during the call, since every
 * callee-saved register holds a chosen value then; SP is put back from
 * there, so a kernel that moves it is reported rather than crashing here.
 * Single-threaded, as the check is.
 */
	.bss
	.balign 16
.Lsaved_sp_and_after:
	.skip 16

	.text
	.globl kc_abi_call_aarch64
	.type kc_abi_call_aarch64, %function
kc_abi_call_aarch64:
	stp x29, x30, [sp, #-160]!
	mov x29, sp
	stp x19, x20, [sp, #16]
	stp x21, x22, [sp, #32]
	stp x23, x24, [sp, #48]
	stp x25, x26, [sp, #64]
	stp x27, x28, [sp, #80]
	stp d8, d9, [sp, #96]
	stp d10, d11, [sp, #112]
	stp d12, d13, [sp, #128]
	stp d14, d15, [sp, #144]
	adrp x9, .Lsaved_sp_and_after
	add x9, x9, :lo12:.Lsaved_sp_and_after
	mov x10, sp
	stp x10, x3, [x9]		/* SP, after */
	mov x16, x0			/* fn */
	mov x17, x1			/* args */
	ldp x19, x20, [x2]		/* fill */
	ldp x21, x22, [x2, #16]
	ldp x23, x24, [x2, #32]
	ldp x25, x26, [x2, #48]
	ldp x27, x28, [x2, #64]
	ldr x29, [x2, #80]
	ldp d8, d9, [x2, #88]
	ldp d10, d11, [x2, #104]
	ldp d12, d13, [x2, #120]
	ldp d14, d15, [x2, #136]
	ldp x0, x1, [x17]
	ldp x2, x3, [x17, #16]
	ldp x4, x5, [x17, #32]
	ldp x6, x7, [x17, #48]
	blr x16
	adrp x9, .Lsaved_sp_and_after
	add x9, x9, :lo12:.Lsaved_sp_and_after
	ldp x10, x11, [x9]		/* SP before the call, after */
	stp x19, x20, [x11]
	stp x21, x22, [x11, #16]
	stp x23, x24, [x11, #32]
	stp x25, x26, [x11, #48]
	stp x27, x28, [x11, #64]
	str x29, [x11, #80]
	stp d8, d9, [x11, #88]
	stp d10, d11, [x11, #104]
	stp d12, d13, [x11, #120]
	stp d14, d15, [x11, #136]
	mov x12, sp
	sub x12, x12, x10
	str x12, [x11, #152]
	mov sp, x10
	ldp x19, x20, [sp, #16]
	ldp x21, x22, [sp, #32]
	ldp x23, x24, [sp, #48]
	ldp x25, x26, [sp, #64]
	ldp x27, x28, [sp, #80]
	ldp d8, d9, [sp, #96]
	ldp d10, d11, [sp, #112]
	ldp d12, d13, [sp, #128]
	ldp d14, d15, [sp, #144]
	ldp x29, x30, [sp], #160
	ret
	.size kc_abi_call_aarch64, .-kc_abi_call_aarch64

	.section .note.GNU-stack,"",%progbits
