#include "base/sha256.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace cudal1 {
namespace {

// FIPS 180-4 §4.2.2: first 32 bits of the fractional parts of the cube roots of
// the first 64 primes.
constexpr std::array<uint32_t, 64> round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

// FIPS 180-4 §5.3.3: first 32 bits of the fractional parts of the square roots
// of the first 8 primes.
constexpr std::array<uint32_t, 8> initial_state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                                   0x1f83d9ab, 0x5be0cd19};

constexpr uint32_t rotate_right(uint32_t x, int bits) { return (x >> bits) | (x << (32 - bits)); }

uint32_t load_big_endian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

sha256::sha256() : state_(initial_state) {}

void sha256::compress_block(const uint8_t* block) {
  std::array<uint32_t, 64> schedule;
  for (int t = 0; t < 16; ++t) schedule[t] = load_big_endian(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const uint32_t w15 = schedule[t - 15], w2 = schedule[t - 2];
    const uint32_t sigma0 = rotate_right(w15, 7) ^ rotate_right(w15, 18) ^ (w15 >> 3);
    const uint32_t sigma1 = rotate_right(w2, 17) ^ rotate_right(w2, 19) ^ (w2 >> 10);
    schedule[t] = schedule[t - 16] + sigma0 + schedule[t - 7] + sigma1;
  }

  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t big_sigma1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    const uint32_t choose = (e & f) ^ (~e & g);
    const uint32_t temp1 = h + big_sigma1 + choose + round_constants[t] + schedule[t];
    const uint32_t big_sigma0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t temp2 = big_sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + temp1;
    d = c;
    c = b;
    b = a;
    a = temp1 + temp2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void sha256::update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

void sha256::update(const void* data, size_t n) {
  assert(digest_hex_.empty() && "sha256::update after hex_digest");
  if (!digest_hex_.empty() || n == 0) return;
  const auto* bytes = static_cast<const uint8_t*>(data);
  message_bytes_ += n;

  if (buffered_bytes_ > 0) {  // top up a partial block first
    const size_t take = std::min(n, buffer_.size() - buffered_bytes_);
    std::memcpy(buffer_.data() + buffered_bytes_, bytes, take);
    buffered_bytes_ += take;
    bytes += take;
    n -= take;
    if (buffered_bytes_ < buffer_.size()) return;
    compress_block(buffer_.data());
    buffered_bytes_ = 0;
  }
  for (; n >= buffer_.size(); bytes += buffer_.size(), n -= buffer_.size()) {
    compress_block(bytes);
  }
  std::memcpy(buffer_.data(), bytes, n);
  buffered_bytes_ = n;
}

std::string sha256::hex_digest() {
  if (!digest_hex_.empty()) return digest_hex_;

  // Padding (FIPS 180-4 §5.1.1): 0x80, zeros to 56 mod 64, then the message
  // length in bits as a 64-bit big-endian integer.
  const uint64_t message_bits = message_bytes_ * 8;
  buffer_[buffered_bytes_++] = 0x80;
  if (buffered_bytes_ > 56) {
    std::memset(buffer_.data() + buffered_bytes_, 0, buffer_.size() - buffered_bytes_);
    compress_block(buffer_.data());
    buffered_bytes_ = 0;
  }
  std::memset(buffer_.data() + buffered_bytes_, 0, 56 - buffered_bytes_);
  for (int i = 0; i < 8; ++i) buffer_[56 + i] = static_cast<uint8_t>(message_bits >> (56 - 8 * i));
  compress_block(buffer_.data());
  buffered_bytes_ = 0;

  static constexpr char hex_digits[] = "0123456789abcdef";
  digest_hex_.reserve(64);
  for (uint32_t word : state_) {
    for (int shift = 28; shift >= 0; shift -= 4) digest_hex_.push_back(hex_digits[(word >> shift) & 0xf]);
  }
  return digest_hex_;
}

std::string sha256_hex(std::string_view bytes) {
  sha256 hasher;
  hasher.update(bytes);
  return hasher.hex_digest();
}

}  // namespace cudal1
