// The exchange layout: where each input, output and parameter lives in the
// buffer that the reference worker owns and the candidate worker maps.
//
// The reference worker (python/cudal1_ref.py) decides the layout and sends it
// in its init reply; the judge forwards it to the candidate worker unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace cudal1 {

/// One tensor in the exchange buffer.
struct tensor_slot {
  std::string name;
  std::string dtype;  // "f32", "f16", "bf16", "f64", "i32", "i64", "bool", "u8", "i8"
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // bytes from the start of the exchange, 256-aligned
  uint64_t nbytes = 0;
  /// For an input that get_inputs() gave as a Python number: "int", "float"
  /// or "bool" (a ModelNew receives it as that number); empty for a tensor.
  std::string scalar;
};

/// How to reach the exchange buffer from another process.
struct exchange_ref {
  std::string kind;        // "file" (CPU backend) or "cuda_ipc"
  std::string path;        // file: the shared file
  std::string ipc_handle;  // cuda_ipc: cudaIpcMemHandle_t as hex
  uint64_t offset = 0;     // cuda_ipc: start of the buffer within the IPC allocation
  uint64_t bytes = 0;
};

/// Where a call's inputs and outputs live: one of two arenas in the exchange,
/// the slots' own layout from the arena's offset plus the call's shift.
struct arena_layout {
  uint64_t offsets[2] = {0, 0};
  uint64_t bytes = 0;      // each arena's size: the inputs and outputs, plus max_shift
  uint64_t max_shift = 0;  // a call's shift is a multiple of 256 below this
};

struct exchange_layout {
  exchange_ref exchange;
  std::vector<tensor_slot> inputs, outputs, params;
  arena_layout arenas;
};

/// The exchange offset of a slot's tensor in a call's arena (precondition:
/// arena 0 or 1, shift checked against max_shift).
inline uint64_t arena_offset(const exchange_layout& l, int arena, uint64_t shift, const tensor_slot& s) {
  return l.arenas.offsets[arena] + shift + s.offset;
}

/// The ABI's dtype code (CUDAL1_F32...) for a dtype name; 0 if unknown.
int dtype_code(const std::string& dtype);
/// Bytes per element of a dtype name; 0 if unknown.
int dtype_size(const std::string& dtype);
bool is_floating_dtype(const std::string& dtype);

result<exchange_layout> parse_layout(const nlohmann::json& j);
nlohmann::json layout_to_json(const exchange_layout& layout);

}  // namespace cudal1
