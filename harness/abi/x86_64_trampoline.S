/*
 * The ABI check's trampoline (System V, x86-64): calls a kernel entry point
 * with every callee-saved general register holding a chosen value, then
 * records what the registers, the flags and the extended state hold after.
 *
 *   void kc_abi_call_x86_64(void (*fn)(void), const uint64_t args[6],
 *                           const uint64_t fill[7], uint64_t after[8]);
 *
 *   fill[0..5]: the values of rbx, rbp, r12, r13, r14, r15 at the call;
 *   fill[6]:    nonzero: VZEROUPPER first (the caller's own upper YMM state
 *               clean, so that what is left after the call is the kernel's;
 *               only where the CPU has AVX);
 *   after[0..5]: rbx, rbp, r12-r15 after the call (must equal fill[0..5]);
 *   after[6]:   RFLAGS after the call (DF, bit 10, must be clear);
 *   after[7]:   XINUSE (XGETBV with ECX = 1) after the call where fill[6] is
 *               nonzero, else 0: bit 2 set means upper YMM state left dirty.
 * The stack pointer is checked by the call itself: a kernel that returns
 * with another one returns somewhere else.
 */
	.text
	.globl kc_abi_call_x86_64
	.type kc_abi_call_x86_64, @function
kc_abi_call_x86_64:
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	push %rcx			/* after */
	push %rdx			/* fill */
	sub $8, %rsp			/* the call below from a 16-byte-aligned stack */
	mov %rdi, %rax			/* fn */
	mov %rsi, %r11			/* args */
	cmpq $0, 48(%rdx)
	je 1f
	vzeroupper
1:	mov 0(%rdx), %rbx
	mov 8(%rdx), %rbp
	mov 16(%rdx), %r12
	mov 24(%rdx), %r13
	mov 32(%rdx), %r14
	mov 40(%rdx), %r15
	mov 0(%r11), %rdi
	mov 8(%r11), %rsi
	mov 16(%r11), %rdx
	mov 24(%r11), %rcx
	mov 32(%r11), %r8
	mov 40(%r11), %r9
	call *%rax
	add $8, %rsp
	pop %rdx			/* fill */
	pop %r8				/* after */
	mov %rbx, 0(%r8)
	mov %rbp, 8(%r8)
	mov %r12, 16(%r8)
	mov %r13, 24(%r8)
	mov %r14, 32(%r8)
	mov %r15, 40(%r8)
	pushfq
	pop %rax
	mov %rax, 48(%r8)
	xor %eax, %eax
	cmpq $0, 48(%rdx)
	je 2f
	mov $1, %ecx
	xgetbv				/* XINUSE in edx:eax */
	shl $32, %rdx
	or %rdx, %rax
2:	mov %rax, 56(%r8)
	cld
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret
	.size kc_abi_call_x86_64, .-kc_abi_call_x86_64

	.section .note.GNU-stack,"",@progbits
