#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cudal1 {

/// Incremental SHA-256 (FIPS 180-4). Feed bytes with update() in any number of
/// pieces, then call hex_digest() once to finalize.
class sha256 {
 public:
  /// Starts an empty message.
  sha256();

  /// Appends bytes to the message. Precondition: hex_digest() not yet called
  /// (asserted in debug builds; ignored in release builds).
  void update(std::string_view bytes);

  /// Appends n bytes at data; data may be null when n == 0. Same precondition.
  void update(const void* data, size_t n);

  /// Finalizes and returns the digest as 64 lowercase hex characters. Calling it
  /// again returns the same digest.
  std::string hex_digest();

 private:
  void compress_block(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_bytes_ = 0;
  uint64_t message_bytes_ = 0;
  std::string digest_hex_;  // non-empty once finalized
};

/// SHA-256 of bytes as 64 lowercase hex characters.
std::string sha256_hex(std::string_view bytes);

}  // namespace cudal1
