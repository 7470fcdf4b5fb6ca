//go:build amd64 && !purego

#include "textflag.h"

// func lines(p unsafe.Pointer, n uintptr)
TEXT ·lines(SB), NOSPLIT|NOFRAME, $0-16
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

// func addrs(a *uintptr, n int)
TEXT ·addrs(SB), NOSPLIT|NOFRAME, $0-16
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
