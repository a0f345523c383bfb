#include "queue/redis.h"

#include <gtest/gtest.h>

namespace cudal1 {
namespace {

TEST(RedisUrlTest, HostPortPasswordAndDatabase) {
  auto a = parse_redis_url("redis://:s3cret@queue.example:6380/2");
  ASSERT_TRUE(a) << a.message();
  EXPECT_EQ(a->host, "queue.example");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->password, "s3cret");
  EXPECT_EQ(a->db, 2);
  auto d = parse_redis_url("redis://127.0.0.1");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->port, 6379);
  EXPECT_EQ(d->db, 0);
  EXPECT_TRUE(d->password.empty());
}

TEST(RedisUrlTest, BadUrlsSayWhy) {
  EXPECT_NE(parse_redis_url("http://x:6379").message().find("redis://"), std::string::npos);
  EXPECT_NE(parse_redis_url("redis://x:99999").message().find("port"), std::string::npos);
  EXPECT_NE(parse_redis_url("redis://x:6379/db").message().find("database"), std::string::npos);
}

TEST(RedisClientTest, NoServerIsAClearError) {
  auto c = redis_client::connect("redis://127.0.0.1:9", 1);
  ASSERT_FALSE(c);
  EXPECT_NE(c.message().find("cannot reach Redis"), std::string::npos);
}

}  // namespace
}  // namespace cudal1
