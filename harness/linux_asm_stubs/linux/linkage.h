/* Stand-in for the kernel's <linux/linkage.h>, enough to assemble
 * arch/arm64/crypto/sm4-*-core.S outside the kernel tree for
 * harness/linux_peers.py: a function symbol with its type and size, no
 * alignment or BTI landing pads (they add no instruction to the loops that
 * are modelled).  Written for this project; not the kernel's file. */
#ifndef KC_STUB_LINUX_LINKAGE_H
#define KC_STUB_LINUX_LINKAGE_H

#define SYM_FUNC_START_LOCAL(name) .type name, %function; name:
#define SYM_FUNC_START(name) .globl name; SYM_FUNC_START_LOCAL(name)
#define SYM_FUNC_END(name) .size name, . - name

#endif
