#include "textflag.h"

// LINES(PREFETCH) issues PREFETCH for every cache line of the n bytes at p
// (the arguments of lines and linesNTA), one line at least. (Labels are
// local to each function.)
#define LINES(PREFETCH) \
	MOVQ p+0(FP), AX; \
	MOVQ n+8(FP), CX; \
	LEAQ -1(AX)(CX*1), CX; \
	ANDQ $~63, AX; \
loop: \
	PREFETCH (AX); \
	ADDQ $64, AX; \
	CMPQ AX, CX; \
	JLS  loop; \
	RET

// func lines(p unsafe.Pointer, n uintptr)
TEXT ·lines(SB), NOSPLIT|NOFRAME, $0-16
	LINES(PREFETCHT0)

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

// func linesNTA(p unsafe.Pointer, n uintptr)
TEXT ·linesNTA(SB), NOSPLIT|NOFRAME, $0-16
	LINES(PREFETCHNTA)
