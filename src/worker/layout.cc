#include "worker/layout.h"

#include <nlohmann/json.hpp>

#include "cudal1/abi.h"

namespace cudal1 {

using json = nlohmann::json;

namespace {
struct dtype_info {
  const char* name;
  int code;
  int size;
  bool floating;
};
constexpr dtype_info kDtypes[] = {
    {"f32", CUDAL1_F32, 4, true},  {"f16", CUDAL1_F16, 2, true},   {"bf16", CUDAL1_BF16, 2, true},
    {"f64", CUDAL1_F64, 8, true},  {"i32", CUDAL1_I32, 4, false},  {"i64", CUDAL1_I64, 8, false},
    {"bool", CUDAL1_BOOL, 1, false}, {"u8", CUDAL1_U8, 1, false}, {"i8", CUDAL1_I8, 1, false},
};

const dtype_info* find_dtype(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

result<std::vector<tensor_slot>> parse_slots(const json& arr, uint64_t exchange_bytes) {
  std::vector<tensor_slot> slots;
  for (const auto& s : arr) {
    tensor_slot t;
    t.name = s.at("name").get<std::string>();
    t.dtype = s.at("dtype").get<std::string>();
    t.shape = s.at("shape").get<std::vector<int64_t>>();
    t.offset = s.at("offset").get<uint64_t>();
    t.nbytes = s.at("nbytes").get<uint64_t>();
    t.scalar = s.value("scalar", "");
    const dtype_info* d = find_dtype(t.dtype);
    if (!d) return make_error("unsupported dtype " + t.dtype + " for " + t.name);
    if (t.shape.size() > CUDAL1_MAX_DIMS) return make_error(t.name + " has more than 8 dimensions");
    uint64_t numel = 1;
    for (int64_t dim : t.shape) {
      if (dim < 0) return make_error(t.name + " has a negative dimension");
      numel *= static_cast<uint64_t>(dim);
    }
    if (numel * static_cast<uint64_t>(d->size) != t.nbytes) return make_error(t.name + ": size does not match its shape");
    if (t.offset % 256 != 0 || t.offset + t.nbytes > exchange_bytes)
      return make_error(t.name + ": offset outside the exchange buffer");
    slots.push_back(std::move(t));
  }
  return slots;
}

json slots_to_json(const std::vector<tensor_slot>& slots) {
  json arr = json::array();
  for (const auto& t : slots) {
    json j = {{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"offset", t.offset}, {"nbytes", t.nbytes}};
    if (!t.scalar.empty()) j["scalar"] = t.scalar;
    arr.push_back(std::move(j));
  }
  return arr;
}
}  // namespace

int dtype_code(const std::string& dtype) {
  const dtype_info* d = find_dtype(dtype);
  return d ? d->code : 0;
}

int dtype_size(const std::string& dtype) {
  const dtype_info* d = find_dtype(dtype);
  return d ? d->size : 0;
}

bool is_floating_dtype(const std::string& dtype) {
  const dtype_info* d = find_dtype(dtype);
  return d && d->floating;
}

result<exchange_layout> parse_layout(const json& j) {
  try {
    exchange_layout layout;
    const json& ex = j.at("exchange");
    layout.exchange.kind = ex.at("kind").get<std::string>();
    layout.exchange.path = ex.value("path", "");
    layout.exchange.ipc_handle = ex.value("handle", "");
    layout.exchange.offset = ex.value("offset", uint64_t{0});
    layout.exchange.bytes = ex.at("bytes").get<uint64_t>();
    if (layout.exchange.kind != "file" && layout.exchange.kind != "cuda_ipc")
      return make_error("unknown exchange kind " + layout.exchange.kind);
    for (auto [key, dst] : {std::pair{"inputs", &layout.inputs}, std::pair{"outputs", &layout.outputs},
                            std::pair{"params", &layout.params}}) {
      auto slots = parse_slots(j.at(key), layout.exchange.bytes);
      if (!slots) return slots.err();
      *dst = std::move(*slots);
    }
    const json& ar = j.at("arenas");
    layout.arenas.offsets[0] = ar.at("offsets").at(0).get<uint64_t>();
    layout.arenas.offsets[1] = ar.at("offsets").at(1).get<uint64_t>();
    layout.arenas.bytes = ar.at("bytes").get<uint64_t>();
    layout.arenas.max_shift = ar.at("max_shift").get<uint64_t>();
    uint64_t in_out_end = 0;
    for (const auto* group : {&layout.inputs, &layout.outputs})
      for (const auto& s : *group) in_out_end = std::max(in_out_end, s.offset + s.nbytes);
    for (uint64_t off : layout.arenas.offsets)
      if (off % 256 != 0 || off + layout.arenas.bytes > layout.exchange.bytes ||
          in_out_end + layout.arenas.max_shift > layout.arenas.bytes)
        return make_error("an arena outside the exchange buffer");
    return layout;
  } catch (const json::exception& e) {
    return make_error(std::string("malformed exchange layout: ") + e.what());
  }
}

json layout_to_json(const exchange_layout& layout) {
  json ex = {{"kind", layout.exchange.kind}, {"bytes", layout.exchange.bytes}, {"offset", layout.exchange.offset}};
  if (!layout.exchange.path.empty()) ex["path"] = layout.exchange.path;
  if (!layout.exchange.ipc_handle.empty()) ex["handle"] = layout.exchange.ipc_handle;
  json arenas = {{"offsets", {layout.arenas.offsets[0], layout.arenas.offsets[1]}},
                 {"bytes", layout.arenas.bytes}, {"max_shift", layout.arenas.max_shift}};
  return {{"exchange", ex},
          {"arenas", arenas},
          {"inputs", slots_to_json(layout.inputs)},
          {"outputs", slots_to_json(layout.outputs)},
          {"params", slots_to_json(layout.params)}};
}

}  // namespace cudal1
