// Shared by the peak kernels (see peak.cl): the parameter block and the unrolling macros.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(push_constant) uniform Params {
  uint iterations;  // of the unrolled body
  uint seed;
  uint unused0;
  uint unused1;
} p;

// Four independent chains, each clpeak's pair x = y * x + y, y = x * y + x (see peak.cl: no
// operand is a constant a driver could fold; the values run to +inf, which costs nothing extra).
#define EACH4(OP) OP(x0, y0) OP(x1, y1) OP(x2, y2) OP(x3, y3)
#define FMA_PAIR(x, y) x = fma(y, x, y); y = fma(x, y, x);
#define EACH8(OP) OP(a0) OP(a1) OP(a2) OP(a3) OP(a4) OP(a5) OP(a6) OP(a7)
#define TIMES4(X) X X X X
#define TIMES16(X) TIMES4(X) TIMES4(X) TIMES4(X) TIMES4(X)
