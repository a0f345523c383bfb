// Pages and exports of a stored run: the self-contained HTML report (tables
// and charts drawn by Chart.js, bundled into the page) and KernelBench's
// eval_results.json layout.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "report/run_summary.h"
#include "store/store.h"

namespace cudal1 {

/// What the report page draws: the summary, each task's best correct
/// candidate, every judgment (task, candidate, verdict, speedup, timings,
/// speed-of-light fraction, published score, hacks), the devices.
nlohmann::json report_data(const run_record& run, const std::vector<judgment_record>& rows);

/// The HTML page for `data`, from the template and chart library staged
/// beside cudal1 (share/cudal1/web/). Without the chart library the page
/// says so and keeps its tables. Errors: no template.
result<std::string> render_html_report(const nlohmann::json& data);

/// KernelBench's eval_results.json: {"PROBLEM": [{"sample_id", "compiled",
/// "correctness", "metadata", "runtime", "runtime_stats"}]}, PROBLEM being the
/// number a task's file name starts with ("23_Softmax"), else its name.
nlohmann::json kernelbench_eval_results(const std::vector<judgment_record>& rows);

}  // namespace cudal1
