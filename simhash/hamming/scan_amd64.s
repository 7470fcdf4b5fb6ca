//go:build amd64 && !purego

#include "textflag.h"

// func scanAVX512(p *byte, n, stride int, low, q uint64, k int, perm *[64]byte, lastLine uintptr, skip *[3]uint64) int
//
// Each step loads the next min(8, left) entries with a masked byte load
// (bytes past them are neither read nor faulted on), spreads them into
// eight 64-bit lanes with VPERMB, and compares popcount((lane & low) ^ q)
// with k in every lane at once. A step whose 64 bytes would reach past the
// line at lastLine loads that line instead, with the entries at their
// offset in it (the permutation shifted by it), so that no load touches a
// line after it. A step with lanes within k drops, when skip is not nil,
// the lanes whose difference from q is zero under one of the skip masks,
// and goes on with the next step if none is left (the masks are read only
// then, so that a scan without such lanes pays nothing for them).
TEXT ·scanAVX512(SB), NOSPLIT, $0-80
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ stride+16(FP), DX
	MOVQ perm+48(FP), DI
	MOVQ lastLine+56(FP), R15
	VPBROADCASTQ low+24(FP), Z1
	VPBROADCASTQ q+32(FP), Z2
	VPBROADCASTQ k+40(FP), Z3
	VMOVDQU64 (DI), Z4
	MOVQ DX, R8
	SHLQ $3, R8 // bytes per step of 8 entries
	XORQ AX, AX // index of the step's first entry
	MOVQ $-1, R12

loop:
	MOVQ CX, R9
	SUBQ AX, R9 // entries left
	JLE  none
	MOVQ $8, R10
	CMPQ R9, R10
	CMOVQLT R9, R10 // entries this step
	BZHIQ R10, R12, R13
	KMOVQ R13, K3
	MOVQ R10, R11
	IMULQ DX, R11 // bytes this step
	BZHIQ R11, R12, R13
	CMPQ SI, R15
	JHI  tail
	KMOVQ R13, K1
	VMOVDQU8.Z (SI), K1, Z0
	VPERMB Z0, Z4, Z0

test:
	VPANDQ Z1, Z0, Z0
	VPXORQ Z2, Z0, Z0 // the lanes' differences from q
	VPOPCNTQ Z0, Z9
	VPCMPUQ $2, Z3, Z9, K3, K2 // lanes with popcount <= k
	KMOVQ K2, R14
	TESTQ R14, R14
	JNZ  found

next:
	ADDQ $8, AX
	ADDQ R8, SI
	JMP  loop

tail:
	// the entries start d = SI - lastLine bytes into the last line, and
	// end within it
	MOVQ SI, BX
	SUBQ R15, BX
	SHLXQ BX, R13, R13
	KMOVQ R13, K1
	VMOVDQU8.Z (R15), K1, Z0
	VPBROADCASTB BX, Z5
	VPADDB Z4, Z5, Z5
	VPERMB Z0, Z5, Z0
	JMP  test

found:
	// drop the lanes that agree with q under a skip mask
	MOVQ skip+64(FP), BX
	TESTQ BX, BX
	JZ   hit
	VPBROADCASTQ 0(BX), Z6
	VPBROADCASTQ 8(BX), Z7
	VPBROADCASTQ 16(BX), Z8
	VPTESTNMQ Z6, Z0, K5
	VPTESTNMQ Z7, Z0, K6
	KORQ K6, K5, K5
	VPTESTNMQ Z8, Z0, K6
	KORQ K6, K5, K5
	KANDNQ K2, K5, K2
	KMOVQ K2, R14
	TESTQ R14, R14
	JZ   next

hit:
	TZCNTQ R14, R14
	ADDQ R14, AX
	MOVQ AX, ret+72(FP)
	VZEROUPPER
	RET

none:
	MOVQ CX, ret+72(FP)
	VZEROUPPER
	RET
