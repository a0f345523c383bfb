// expect: runtime_error
// Fails (returns 1) after writing bytes that are not UTF-8 to stderr: the verdict
// quotes the worker's log, and a judgment must still be written as JSON (an
// attack review, 2026-12-07: the JSON dump threw, no verdict).
#include <cudal1/abi.h>

#include <cstdio>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  std::fputs("\xff\xfe not UTF-8\n", stderr);
  std::fflush(stderr);
  return 1;
}
