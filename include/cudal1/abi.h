/* cudal1/abi.h: the contract a native candidate implements.
 *
 * A native candidate is one C++ (.cpp, CPU backend) or CUDA (.cu, CUDA
 * backend) source file that includes this header and defines
 * cudal1_forward(). The judge compiles it into a shared library, loads it in a
 * fresh sandboxed process, and calls it with buffers the judge owns:
 *
 *   - every tensor is contiguous and row-major (stride[] says so explicitly),
 *     its data 256-byte aligned;
 *   - on CUDA, data points to device memory and the kernels must be launched on
 *     `stream` (work anywhere else still counts: timing ends in a device-wide
 *     synchronization); on the CPU, data is host memory and stream is NULL;
 *   - the output buffers are filled with NaN (a sentinel for integer types)
 *     before each call: every element must be written;
 *   - inputs and parameters must not be modified;
 *   - every call gets fresh inputs at fresh addresses: results must not be
 *     cached between calls.
 *
 * Return 0 on success; any other value is reported as a runtime error.
 */
#ifndef CUDAL1_ABI_H
#define CUDAL1_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. The values are part of the ABI: never renumber them. */
enum {
  CUDAL1_F32 = 1,  /* float */
  CUDAL1_F16 = 2,  /* IEEE half (__half) */
  CUDAL1_BF16 = 3, /* bfloat16 (__nv_bfloat16) */
  CUDAL1_F64 = 4,  /* double */
  CUDAL1_I32 = 5,  /* int32_t */
  CUDAL1_I64 = 6,  /* int64_t */
  CUDAL1_BOOL = 7, /* one byte, 0 or 1 */
  CUDAL1_U8 = 8,   /* uint8_t */
  CUDAL1_I8 = 9    /* int8_t */
};

#define CUDAL1_MAX_DIMS 8

typedef struct {
  void* data;                       /* device memory on CUDA, host memory on CPU */
  int dtype;                        /* one of CUDAL1_F32 ... CUDAL1_I8 */
  int ndim;                         /* 0 for a scalar */
  int64_t shape[CUDAL1_MAX_DIMS];
  int64_t stride[CUDAL1_MAX_DIMS];  /* in elements */
  const char* name;                 /* "arg0", "arg1"... for forward() arguments; the
                                       state_dict name for parameters and buffers;
                                       "out0", "out1"... for outputs */
} cudal1_tensor;

/* args: forward() arguments in order (Python scalars arrive as 0-d tensors:
         float as F64, int as I64, bool as BOOL);
   params: the reference Model's parameters and buffers, in state_dict order,
           with the reference's values;
   outs: judge-allocated outputs with the reference outputs' shapes and dtypes;
   stream: the cudaStream_t to launch on (NULL on the CPU). Returns 0 on success. */
int cudal1_forward(const cudal1_tensor* args, int n_args,
                   const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream);

/* Number of elements of a tensor. */
static inline int64_t cudal1_numel(const cudal1_tensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

#ifdef __cplusplus
}
#endif

#endif /* CUDAL1_ABI_H */
