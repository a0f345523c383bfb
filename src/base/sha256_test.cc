#include "base/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace cudal1 {
namespace {

TEST(sha256, fips_180_vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(sha256, one_million_a_in_uneven_chunks) {
  const std::string chunk_source(1000, 'a');
  const size_t chunk_bytes[] = {1, 7, 63, 64, 65, 127, 128, 129, 3, 1000, 55, 56, 57};
  sha256 hasher;
  size_t fed_bytes = 0;
  for (size_t i = 0; fed_bytes < 1000000; ++i) {
    const size_t take = std::min(chunk_bytes[i % std::size(chunk_bytes)], 1000000 - fed_bytes);
    hasher.update(chunk_source.data(), take);
    fed_bytes += take;
  }
  EXPECT_EQ(hasher.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(sha256, padding_boundaries) {
  // Lengths around the 55/56-byte point where the length field spills into a
  // second block, and around whole blocks. Expected values from coreutils sha256sum.
  struct vector_case {
    size_t bytes;
    const char* hex;
  };
  const vector_case cases[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
  };
  for (const vector_case& c : cases) {
    EXPECT_EQ(sha256_hex(std::string(c.bytes, 'x')), c.hex) << c.bytes << " bytes";
  }
}

/// 200 bytes covering every byte value class, including NUL and >= 0x80.
std::string make_message() {
  std::string message;
  for (int i = 0; i < 200; ++i) message.push_back(static_cast<char>((i * 37 + 11) % 256));
  return message;
}

TEST(sha256, binary_message_matches_reference) {
  // Expected value from Python's hashlib.
  EXPECT_EQ(sha256_hex(make_message()),
            "5e48d64839a8bff5e2471507af6a49f9990817df437857f4a2007df41266e1b5");
}

TEST(sha256, incremental_split_at_every_position_matches_one_shot) {
  const std::string message = make_message();
  const std::string_view view = message;
  const std::string expected = sha256_hex(message);
  for (size_t split = 0; split <= message.size(); ++split) {
    sha256 hasher;
    hasher.update(view.substr(0, split));
    hasher.update(view.substr(split));
    EXPECT_EQ(hasher.hex_digest(), expected) << "split at " << split;
  }
}

TEST(sha256, incremental_three_way_splits_match_one_shot) {
  const std::string message = make_message();
  const std::string_view view = message;
  const std::string expected = sha256_hex(message);
  for (size_t first = 0; first <= message.size(); ++first) {
    for (size_t second = first; second <= message.size(); ++second) {
      sha256 hasher;
      hasher.update(view.substr(0, first));
      hasher.update(message.data() + first, second - first);
      hasher.update(view.substr(second));
      ASSERT_EQ(hasher.hex_digest(), expected) << "splits at " << first << ", " << second;
    }
  }
}

TEST(sha256, empty_updates_are_no_ops) {
  sha256 hasher;
  hasher.update(nullptr, 0);
  hasher.update("ab");
  hasher.update("", 0);
  hasher.update(std::string_view{});
  hasher.update("c");
  EXPECT_EQ(hasher.hex_digest(), sha256_hex("abc"));
}

TEST(sha256, hex_digest_is_stable_once_finalized) {
  sha256 hasher;
  hasher.update("abc");
  const std::string first = hasher.hex_digest();
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(hasher.hex_digest(), first);
}

TEST(sha256, update_after_finalize_is_a_precondition_violation) {
  sha256 hasher;
  hasher.hex_digest();
  EXPECT_DEBUG_DEATH(hasher.update("x"), "");
}

}  // namespace
}  // namespace cudal1
