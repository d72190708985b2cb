/* Stand-in for the kernel's <asm/assembler.h> (arm64), enough to assemble
 * arch/arm64/crypto/sm4-*-core.S for harness/linux_peers.py.  Only the
 * macros those files use: adr_l, the address of a symbol anywhere within
 * +/-4 GiB (page address, then the offset in the page).  Written for this
 * project; not the kernel's file. */
#ifndef KC_STUB_ASM_ASSEMBLER_H
#define KC_STUB_ASM_ASSEMBLER_H

	.macro	adr_l, dst, sym
	adrp	\dst, \sym
	add	\dst, \dst, :lo12:\sym
	.endm

#endif
