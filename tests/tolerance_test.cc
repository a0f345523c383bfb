#include <gtest/gtest.h>
TEST(Placeholder, Todo) { EXPECT_TRUE(true); }
