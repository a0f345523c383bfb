// The CPU backend: host memory, memcpy, a cache-evicting write and a
// steady_clock window.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "cudal1/abi.h"
#include "device/device.h"

namespace cudal1 {
namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

// Maps every page of the exchange writable in this process now, without
// changing its contents: each call's arena lies at a fresh random shift, so
// otherwise the candidate's window paid a minor fault for every page it
// touched first (a false-rejection review, 2026-12-07: a 2 us axpy on 4096
// floats had 85 of 200 calls slowed to 20-175 us, every one by page faults,
// 292 in all, and was scored 0.27-0.33x). Where the kernel lacks it, the
// faults stay (nothing else changes).
void populate_for_writing(void* p, size_t bytes) { (void)madvise(p, bytes, MADV_POPULATE_WRITE); }

// One sentinel element for a dtype: NaN for floating types; for the others
// all-ones bytes (variant 0: an impossible bool, -1) or 0x5A bytes (variant 1).
void sentinel_bytes(int dtype_code, int variant, unsigned char out[8], int* size) {
  std::memset(out, variant ? 0x5A : 0xFF, 8);
  switch (dtype_code) {
    case CUDAL1_F32: {
      float v = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(out, &v, 4);
      *size = 4;
      return;
    }
    case CUDAL1_F64: {
      double v = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(out, &v, 8);
      *size = 8;
      return;
    }
    case CUDAL1_F16: out[0] = 0x00; out[1] = 0x7E; *size = 2; return;   // 0x7E00
    case CUDAL1_BF16: out[0] = 0xC0; out[1] = 0x7F; *size = 2; return;  // 0x7FC0
    default: *size = 1; return;
  }
}

class cpu_device final : public device {
 public:
  explicit cpu_device(uint64_t flush_bytes) : flush_(flush_bytes, 0) {
    facts_.backend = "cpu";
    facts_.name = cpu_model_name();
    facts_.l2_bytes = flush_bytes / 2;
  }
  ~cpu_device() override {
    for (auto& [ptr, bytes] : mappings_) munmap(ptr, bytes);
  }

  const device_facts& facts() const override { return facts_; }

  result<void*> allocate(size_t bytes) override {
    void* p = mmap(nullptr, std::max<size_t>(bytes, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return make_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    mappings_.emplace_back(p, std::max<size_t>(bytes, 1));
    return p;
  }

  void release(void* ptr) override {
    for (auto it = mappings_.begin(); it != mappings_.end(); ++it) {
      if (it->first == ptr) {
        munmap(it->first, it->second);
        mappings_.erase(it);
        return;
      }
    }
  }

  result<void*> open_exchange(const exchange_ref& ref) override {
    if (ref.kind != "file") return make_error("the CPU backend needs a file exchange, got " + ref.kind);
    // Not through a link, and only the plain file the reference made: an
    // untrusted task's reference owns the folder it lies in, and this worker
    // is still root here (an attack review: a task that swapped it for a link
    // had the worker map a root-only file of the judge's machine).
    int fd = open(ref.path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return make_error("cannot open exchange " + ref.path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || static_cast<uint64_t>(st.st_size) != ref.bytes) {
      close(fd);
      return make_error("the exchange " + ref.path + " is not the reference's file (not a plain file of its size with one link)");
    }
    void* p = mmap(nullptr, ref.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return make_error("cannot map exchange " + ref.path + ": " + std::strerror(errno));
    populate_for_writing(p, ref.bytes);
    mappings_.emplace_back(p, ref.bytes);
    return p;
  }

  status copy(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return ok_status();
  }

  status fill_sentinel(void* ptr, size_t bytes, int dtype_code, int variant) override {
    unsigned char pattern[8];
    int size = 1;
    sentinel_bytes(dtype_code, variant, pattern, &size);
    auto* p = static_cast<unsigned char*>(ptr);
    for (size_t i = 0; i + size <= bytes; i += size) std::memcpy(p + i, pattern, size);
    return ok_status();
  }

  status flush_caches() override {
    ++flush_round_;
    std::memset(flush_.data(), flush_round_ & 0xFF, flush_.size());
    return ok_status();
  }

  void* stream() override { return nullptr; }

  status start_timer() override {
    start_ = std::chrono::steady_clock::now();
    return ok_status();
  }

  result<double> stop_timer() override {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

  status synchronize() override { return ok_status(); }

 private:
  static std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("model name", 0) == 0) {
        auto colon = line.find(':');
        if (colon != std::string::npos) return line.substr(colon + 2);
      }
    }
    return "cpu";
  }

  device_facts facts_;
  std::vector<unsigned char> flush_;
  unsigned flush_round_ = 0;
  std::vector<std::pair<void*, size_t>> mappings_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::unique_ptr<device> make_cpu_device(uint64_t flush_bytes) { return std::make_unique<cpu_device>(flush_bytes); }

}  // namespace cudal1
