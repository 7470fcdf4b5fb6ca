//go:build amd64 && !purego

#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n uintptr)
TEXT ·prefetchLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ -1(AX)(CX*1), CX
	ANDQ $~63, AX
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, CX
	JLS  loop
	RET

// func prefetchAddrs(a *uintptr, n int)
TEXT ·prefetchAddrs(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ a+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ (AX)(CX*8), CX
next:
	MOVQ (AX), DX
	PREFETCHT0 (DX)
	ADDQ $8, AX
	CMPQ AX, CX
	JB   next
	RET
