// inconclusive_recheck_clears: when a second judgment's inconclusive clock
// check lifts a first judgment's clock disagreement.
#include <gtest/gtest.h>

#include "judge/judge.h"

namespace cudal1 {
namespace {

using nlohmann::json;

json figures(bool agrees, bool grey) {
  return {{"agrees", agrees}, {"grey_zone", grey}, {"missing_ms", agrees ? 0.05 : 0.3}, {"tolerance_ms", 0.2}};
}

json clock(bool agrees, bool grey) {
  return {{"run_beyond_window", figures(agrees, grey)}, {"agrees", agrees || grey}, {"conclusive", false}};
}

TEST(InconclusiveRecheck, ClearsOnlyWhereNothingWasMissing) {
  EXPECT_TRUE(inconclusive_recheck_clears(clock(true, false)));
  // The grey zone counts calls by the judge's clock but found time missing.
  EXPECT_FALSE(inconclusive_recheck_clears(clock(false, true)));
  EXPECT_FALSE(inconclusive_recheck_clears(clock(false, false)));
}

TEST(InconclusiveRecheck, TheFullSpeedPairsMustBeCleanToo) {
  json c = clock(true, false);
  c["full_speed_pairs"] = {{"run_beyond_window", figures(false, true)}, {"agrees", true}, {"conclusive", false}};
  EXPECT_FALSE(inconclusive_recheck_clears(c));
  c["full_speed_pairs"]["run_beyond_window"] = figures(true, false);
  EXPECT_TRUE(inconclusive_recheck_clears(c));
}

TEST(InconclusiveRecheck, MissingFiguresNeverClear) {
  EXPECT_FALSE(inconclusive_recheck_clears(json()));
  EXPECT_FALSE(inconclusive_recheck_clears(json::object()));
  EXPECT_FALSE(inconclusive_recheck_clears({{"run_beyond_window", {{"agrees", true}}}}));  // grey_zone absent
  json c = clock(true, false);
  c["full_speed_pairs"] = json::object();
  EXPECT_FALSE(inconclusive_recheck_clears(c));
}

}  // namespace
}  // namespace cudal1
