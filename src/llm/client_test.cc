// The LLM client against the replay server, both in this process: every
// answer, error and delay the client must handle is an entry of an answers
// file.
#include "llm/client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "base/fs.h"
#include "base/sha256.h"
#include "llm/replay.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

chat_request make_request(const std::string& user, const std::string& model = "replay") {
  chat_request r;
  r.model = model;
  r.temperature = 0.7;
  r.messages = {{"system", "You write CUDA kernels."}, {"user", user}};
  return r;
}

// The hash as replay.h documents it, computed independently of replay.cc.
std::string documented_hash(const chat_request& r) {
  std::string bytes = r.model + std::string(1, '\0');
  for (const auto& m : r.messages) bytes += m.role + std::string(1, '\0') + m.content + std::string(1, '\0');
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", r.temperature);
  return sha256_hex(bytes + t);
}

class ReplayFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = make_temp_dir("cudal1-llm-test");
    ASSERT_TRUE(d.ok()) << d.message();
    dir_ = *d;
  }
  void TearDown() override { remove_tree(dir_); }

  // Starts a replay server over these answers (JSON objects, one a line).
  std::unique_ptr<replay_server> serve(const std::vector<json>& answers, std::vector<std::string> models = {"replay"}) {
    std::string path = dir_ + "/answers" + std::to_string(files_++) + ".jsonl";
    std::ofstream out(path);
    for (const auto& a : answers) out << a.dump() << "\n";
    out.close();
    replay_options o;
    o.answers_path = path;
    o.models = std::move(models);
    auto s = replay_server::start(o);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // Fast backoff: the tests wait on Retry-After and delays, never on the schedule.
  static llm_options options_for(const replay_server& s) {
    llm_options o;
    o.base_url = s.base_url();
    o.timeout_s = 5;
    o.max_retries = 2;
    o.backoff_initial_s = 0.01;
    o.backoff_max_s = 2;
    return o;
  }

  std::string dir_;
  int files_ = 0;
};

using LlmClient = ReplayFixture;
using ReplayServer = ReplayFixture;

TEST_F(LlmClient, answers_with_content_and_usage) {
  auto s = serve({{{"content", "```cuda\nint cudal1_forward();\n```"}, {"usage", {{"prompt_tokens", 120}, {"completion_tokens", 30}}}}});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("speed up this kernel", "qwen-coder"));
  ASSERT_TRUE(std::holds_alternative<chat_response>(out)) << std::get<llm_failure>(out).message;
  const auto& r = std::get<chat_response>(out);
  EXPECT_EQ(r.content, "```cuda\nint cudal1_forward();\n```");
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.model, "qwen-coder");  // echoed
  EXPECT_EQ(r.usage.prompt_tokens, 120);
  EXPECT_EQ(r.usage.completion_tokens, 30);
  EXPECT_EQ(r.usage.total_tokens, 150);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_GT(r.seconds, 0);
  EXPECT_EQ(s->requests_served(), 1);
}

TEST_F(LlmClient, usage_is_estimated_when_not_recorded) {
  auto s = serve({{{"content", std::string(400, 'x')}}});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<chat_response>(out));
  EXPECT_EQ(std::get<chat_response>(out).usage.completion_tokens, 100);  // bytes / 4
  EXPECT_GT(std::get<chat_response>(out).usage.prompt_tokens, 0);
}

TEST_F(LlmClient, base_url_may_omit_v1_and_end_in_a_slash) {
  auto s = serve({{{"content", "one"}}, {{"content", "two"}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  const std::string root = o.base_url.substr(0, o.base_url.size() - 3);  // without "/v1"
  for (const std::string& base : {root, root + "/", o.base_url + "/"}) {
    o.base_url = base;
    llm_client client(o);
    EXPECT_EQ(client.options().base_url, root + "/v1");
  }
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<chat_response>(out)) << std::get<llm_failure>(out).message;
  EXPECT_EQ(std::get<chat_response>(out).content, "one");
}

TEST_F(LlmClient, retries_a_500_then_succeeds) {
  auto s = serve({{{"status", 500}, {"content", "CUDA out of memory"}}, {{"content", "second time lucky"}}});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<chat_response>(out)) << std::get<llm_failure>(out).message;
  EXPECT_EQ(std::get<chat_response>(out).content, "second time lucky");
  EXPECT_EQ(std::get<chat_response>(out).attempts, 2);
  EXPECT_EQ(s->requests_served(), 2);
}

TEST_F(LlmClient, honours_retry_after_on_429) {
  auto s = serve({{{"status", 429}, {"retry_after_s", 1}}, {{"content", "after the wait"}}});
  ASSERT_TRUE(s);
  const auto start = steady::now();
  auto out = llm_client(options_for(*s)).chat(make_request("hi"));
  const double elapsed = seconds_since(start);
  ASSERT_TRUE(std::holds_alternative<chat_response>(out)) << std::get<llm_failure>(out).message;
  EXPECT_EQ(std::get<chat_response>(out).attempts, 2);
  EXPECT_GE(elapsed, 0.95);  // the schedule alone would have waited ~0.01 s
  EXPECT_LT(elapsed, 1.8);
}

TEST_F(LlmClient, retry_after_is_capped_by_backoff_max) {
  auto s = serve({{{"status", 503}, {"retry_after_s", 30}}, {{"content", "soon"}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.backoff_max_s = 0.2;
  const auto start = steady::now();
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<chat_response>(out));
  EXPECT_LT(seconds_since(start), 1.0);
}

TEST_F(LlmClient, rate_limited_after_every_retry) {
  auto s = serve({{{"status", 429}, {"content", "slow down"}, {"repeat", true}}});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::rate_limited);
  EXPECT_EQ(f.attempts, 3);
  EXPECT_EQ(f.http_status, 429);
  EXPECT_NE(f.message.find("slow down"), std::string::npos) << f.message;
}

TEST_F(LlmClient, delay_beyond_the_timeout_is_a_timeout) {
  auto s = serve({{{"content", "too late"}, {"delay_s", 5}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.timeout_s = 0.5;
  o.max_retries = 0;
  const auto start = steady::now();
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::timeout) << f.message;
  EXPECT_EQ(f.attempts, 1);
  EXPECT_GE(f.seconds, 0.45);
  EXPECT_LT(seconds_since(start), 1.5);
  EXPECT_STREQ(to_string(f.kind), "timeout");
  // The server's stop (at the end of the test) cuts the delayed answer short.
}

TEST_F(LlmClient, a_cancelled_request_ends_at_once_during_the_answer_and_the_backoff) {
  auto s = serve({{{"content", "too late"}, {"delay_s", 5}}, {{"status", 500}, {"repeat", true}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  const auto start = steady::now();
  o.cancelled = [start] { return seconds_since(start) > 0.3; };
  auto out = llm_client(o).chat(make_request("hi"));  // waits on the delayed answer
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  EXPECT_EQ(std::get<llm_failure>(out).kind, llm_error_kind::cancelled) << std::get<llm_failure>(out).message;
  EXPECT_LT(seconds_since(start), 1.5);
  // In a long backoff after a 500.
  o.backoff_initial_s = 30;
  o.max_retries = 3;
  const auto again = steady::now();
  o.cancelled = [again] { return seconds_since(again) > 0.3; };
  out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  EXPECT_EQ(std::get<llm_failure>(out).kind, llm_error_kind::cancelled);
  EXPECT_LT(seconds_since(again), 1.5);
}

TEST_F(LlmClient, body_that_is_not_json_is_malformed_after_the_normal_retries) {
  auto s = serve({{{"body", "not json"}, {"repeat", true}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.max_retries = 1;
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::malformed);
  EXPECT_EQ(f.attempts, 2);
  EXPECT_EQ(f.http_status, 200);
  EXPECT_NE(f.message.find("not JSON"), std::string::npos) << f.message;
}

TEST_F(LlmClient, completion_without_content_is_malformed) {
  json no_content = {{"choices", {{{"message", {{"role", "assistant"}, {"content", nullptr}}}, {"finish_reason", "length"}}}}};
  auto s = serve({{{"body", no_content.dump()}}, {{"body", R"({"choices": []})"}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.max_retries = 0;
  llm_client client(o);
  auto first = client.chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(first));
  EXPECT_EQ(std::get<llm_failure>(first).kind, llm_error_kind::malformed);
  EXPECT_NE(std::get<llm_failure>(first).message.find("choices[0].message.content"), std::string::npos);
  EXPECT_NE(std::get<llm_failure>(first).message.find("finish_reason length"), std::string::npos);
  auto second = client.chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(second));
  EXPECT_NE(std::get<llm_failure>(second).message.find("no choices"), std::string::npos);
}

TEST_F(LlmClient, refused_key_is_unauthorized_and_not_retried) {
  auto s = serve({{{"status", 401}, {"content", "Incorrect API key provided"}, {"repeat", true}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.api_key = "sk-wrong";
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::unauthorized);
  EXPECT_EQ(f.http_status, 401);
  EXPECT_EQ(f.attempts, 1);
  EXPECT_NE(f.message.find("refused the API key (HTTP 401)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("--api-key-env"), std::string::npos);
}

TEST_F(LlmClient, missing_model_names_it_and_lists_the_servers) {
  auto s = serve({{{"status", 404}, {"content", "The model `gpt-9` does not exist."}}}, {"replay", "qwen-coder"});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("hi", "gpt-9"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::model_not_found);
  EXPECT_NE(f.message.find("no model 'gpt-9'"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("it offers replay, qwen-coder"), std::string::npos) << f.message;
}

TEST_F(LlmClient, other_4xx_is_a_bad_request_with_the_servers_message) {
  auto s = serve({{{"status", 400}, {"content", "max_tokens must be at most 4096"}}});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::bad_request);
  EXPECT_EQ(f.attempts, 1);
  EXPECT_NE(f.message.find("max_tokens must be at most 4096"), std::string::npos) << f.message;
}

TEST_F(LlmClient, closed_port_is_a_bad_url) {
  std::string url;
  {
    auto s = serve({});
    ASSERT_TRUE(s);
    url = s->base_url();
  }  // stopped: nothing listens there now
  llm_options o;
  o.base_url = url;
  o.backoff_initial_s = 0.01;
  const auto start = steady::now();
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::bad_url);
  EXPECT_EQ(f.attempts, 1);  // not retried: the user must fix it
  EXPECT_NE(f.message.find(url + "/chat/completions"), std::string::npos) << f.message;
  EXPECT_LT(seconds_since(start), 1.0);
}

TEST_F(LlmClient, unsupported_scheme_is_a_bad_url) {
  llm_options o;
  o.base_url = "htp://127.0.0.1:1/v1";
  auto out = llm_client(o).models();
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  EXPECT_EQ(std::get<llm_failure>(out).kind, llm_error_kind::bad_url);
  EXPECT_NE(std::get<llm_failure>(out).message.find("htp://127.0.0.1:1/v1/models"), std::string::npos);
}

TEST_F(LlmClient, wrong_path_is_a_bad_url) {
  auto s = serve({});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.base_url = "http://127.0.0.1:" + std::to_string(s->port()) + "/api/v1";
  auto out = llm_client(o).chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  EXPECT_EQ(std::get<llm_failure>(out).kind, llm_error_kind::bad_url);
  EXPECT_EQ(std::get<llm_failure>(out).http_status, 404);
}

TEST_F(LlmClient, lists_models) {
  auto s = serve({}, {"replay", "deepseek-r1", "qwen-coder"});
  ASSERT_TRUE(s);
  auto out = llm_client(options_for(*s)).models();
  ASSERT_TRUE((std::holds_alternative<std::vector<std::string>>(out)));
  EXPECT_EQ(std::get<std::vector<std::string>>(out), (std::vector<std::string>{"replay", "deepseek-r1", "qwen-coder"}));
}

TEST_F(LlmClient, exhausted_replay_is_a_server_error_after_retries) {
  auto s = serve({{{"content", "only one"}}});
  ASSERT_TRUE(s);
  llm_client client(options_for(*s));
  ASSERT_TRUE(std::holds_alternative<chat_response>(client.chat(make_request("hi"))));
  auto out = client.chat(make_request("hi"));
  ASSERT_TRUE(std::holds_alternative<llm_failure>(out));
  const auto& f = std::get<llm_failure>(out);
  EXPECT_EQ(f.kind, llm_error_kind::server_error);
  EXPECT_EQ(f.http_status, 503);
  EXPECT_EQ(f.attempts, 3);  // 1 + max_retries
  EXPECT_NE(f.message.find("no answer left"), std::string::npos) << f.message;
  EXPECT_EQ(s->requests_served(), 4);
}

TEST_F(LlmClient, one_client_serves_many_threads) {
  auto s = serve({{{"content", "shared"}, {"repeat", true}}});
  ASSERT_TRUE(s);
  llm_client client(options_for(*s));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      auto out = client.chat(make_request("request " + std::to_string(i)));
      if (auto* r = std::get_if<chat_response>(&out); r && r->content == "shared") ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(s->requests_served(), 8);
}

TEST_F(ReplayServer, request_hash_selects_the_entry) {
  chat_request request = make_request("optimize conv2d");
  const std::string hash = documented_hash(request);
  auto s = serve({{{"request_hash", std::string(64, '0')}, {"content", "another request's"}},
                  {{"request_hash", hash}, {"content", "this request's"}},
                  {{"content", "anything"}}});
  ASSERT_TRUE(s);
  llm_client client(options_for(*s));
  auto out = client.chat(request);
  ASSERT_TRUE(std::holds_alternative<chat_response>(out));
  EXPECT_EQ(std::get<chat_response>(out).content, "this request's");
  // Another temperature is another request: the hash entry is skipped.
  request.temperature = 0.2;
  auto other = client.chat(request);
  ASSERT_TRUE(std::holds_alternative<chat_response>(other));
  EXPECT_EQ(std::get<chat_response>(other).content, "anything");
}

TEST_F(ReplayServer, match_selects_by_the_last_user_message_and_entries_serve_once) {
  auto s = serve({{{"match", "softmax"}, {"content", "A"}},
                  {{"match", "matmul"}, {"content", "B"}},
                  {{"match", "matmul"}, {"content", "C"}, {"repeat", true}}});
  ASSERT_TRUE(s);
  llm_options o = options_for(*s);
  o.max_retries = 0;
  llm_client client(o);
  auto content = [&](const std::string& user) {
    auto out = client.chat(make_request(user));
    return std::holds_alternative<chat_response>(out) ? std::get<chat_response>(out).content
                                                      : "error: " + std::get<llm_failure>(out).message;
  };
  EXPECT_EQ(content("a matmul kernel"), "B");
  EXPECT_EQ(content("a matmul kernel again"), "C");
  EXPECT_EQ(content("and once more, matmul"), "C");  // repeat
  EXPECT_EQ(content("softmax please"), "A");
  EXPECT_EQ(content("softmax please").substr(0, 6), "error:");  // served, no repeat
}

TEST_F(ReplayServer, a_delayed_answer_does_not_hold_up_others) {
  auto s = serve({{{"match", "slow"}, {"content", "slow answer"}, {"delay_s", 1.0}}, {{"match", "fast"}, {"content", "fast answer"}}});
  ASSERT_TRUE(s);
  llm_client client(options_for(*s));
  std::string slow_content;
  const auto start = steady::now();
  std::thread slow([&] {
    auto out = client.chat(make_request("slow"));
    if (auto* r = std::get_if<chat_response>(&out)) slow_content = r->content;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto fast = client.chat(make_request("fast"));
  const double fast_done = seconds_since(start);
  slow.join();
  ASSERT_TRUE(std::holds_alternative<chat_response>(fast));
  EXPECT_EQ(std::get<chat_response>(fast).content, "fast answer");
  EXPECT_LT(fast_done, 0.6);
  EXPECT_EQ(slow_content, "slow answer");
  EXPECT_GE(seconds_since(start), 0.95);
}

TEST_F(ReplayServer, record_mode_forwards_and_appends_the_answer) {
  auto upstream = serve({{{"content", "the real model's kernel"}, {"usage", {{"prompt_tokens", 7}, {"completion_tokens", 3}}}}});
  ASSERT_TRUE(upstream);
  replay_options o;
  o.answers_path = dir_ + "/recorded.jsonl";  // not there yet: created
  o.record_url = upstream->base_url();
  auto recorder = replay_server::start(o);
  ASSERT_TRUE(recorder.ok()) << recorder.message();
  chat_request request = make_request("optimize layernorm", "big-model");
  auto out = llm_client(options_for(**recorder)).chat(request);
  ASSERT_TRUE(std::holds_alternative<chat_response>(out)) << std::get<llm_failure>(out).message;
  EXPECT_EQ(std::get<chat_response>(out).content, "the real model's kernel");
  EXPECT_EQ(std::get<chat_response>(out).usage.total_tokens, 10);
  EXPECT_EQ(upstream->requests_served(), 1);

  auto text = read_file(o.answers_path);
  ASSERT_TRUE(text.ok()) << text.message();
  ASSERT_EQ(std::count(text->begin(), text->end(), '\n'), 1);
  json line = json::parse(*text);
  EXPECT_EQ(line["request_hash"], documented_hash(request));
  EXPECT_EQ(line["match"], "");
  EXPECT_EQ(line["content"], "the real model's kernel");
  EXPECT_EQ(line["usage"]["prompt_tokens"], 7);
  EXPECT_EQ(line["usage"]["completion_tokens"], 3);
  EXPECT_EQ(line["usage"]["total_tokens"], 10);

  // The recording replays: the same request gets the answer, another none.
  replay_options again;
  again.answers_path = o.answers_path;
  auto replay = replay_server::start(again);
  ASSERT_TRUE(replay.ok()) << replay.message();
  llm_options ro = options_for(**replay);
  ro.max_retries = 0;
  llm_client client(ro);
  EXPECT_TRUE(std::holds_alternative<llm_failure>(client.chat(make_request("optimize layernorm"))));  // other model
  auto replayed = client.chat(request);
  ASSERT_TRUE(std::holds_alternative<chat_response>(replayed));
  EXPECT_EQ(std::get<chat_response>(replayed).content, "the real model's kernel");
}

TEST_F(ReplayServer, http_routes_and_malformed_requests) {
  auto s = serve({{{"content", "hello"}}});
  ASSERT_TRUE(s);
  httplib::Client http("127.0.0.1", s->port());
  auto bad = http.Post("/v1/chat/completions", "{not json", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  json error = json::parse(bad->body);
  EXPECT_EQ(error["error"]["type"], "invalid_request_error");
  EXPECT_NE(error["error"]["message"].get<std::string>().find("not JSON"), std::string::npos);

  auto no_messages = http.Post("/v1/chat/completions", R"({"model": "m"})", "application/json");
  ASSERT_TRUE(no_messages);
  EXPECT_EQ(no_messages->status, 400);

  // The route without /v1, and the completion's shape.
  auto ok = http.Post("/chat/completions", R"({"model": "m", "messages": [{"role": "user", "content": "hi"}]})",
                      "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  json c = json::parse(ok->body);
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["model"], "m");
  EXPECT_EQ(c["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(c["choices"][0]["message"]["content"], "hello");
  EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
  EXPECT_TRUE(c["id"].is_string() && c["created"].is_number());

  auto health = http.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["status"], "ok");

  auto unknown = http.Get("/v1/completions");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_TRUE(json::parse(unknown->body)["error"]["message"].is_string());
}

TEST_F(ReplayServer, bad_answers_files_are_clear_errors) {
  replay_options o;
  o.answers_path = dir_ + "/missing.jsonl";
  auto missing = replay_server::start(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("missing.jsonl: no such file"), std::string::npos) << missing.message();

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"content\": \"ok\"}\n\n{\"content\": \"broken\"\n", ":3: not JSON"},
      {"{\"content\": 5}\n", ":1: a field of the wrong type"},
      {"{\"match\": \"x\"}\n", ":1: needs content, body or a status"},
      {"{\"content\": \"x\", \"usage\": {\"prompt_tokens\": \"many\"}}\n", ":1: usage.prompt_tokens must be an integer"},
  };
  for (const auto& [text, expected] : cases) {
    o.answers_path = dir_ + "/bad.jsonl";
    ASSERT_TRUE(write_file_atomic(o.answers_path, text).ok());
    auto s = replay_server::start(o);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find("bad.jsonl" + expected), std::string::npos) << s.message();
  }
}

TEST_F(ReplayServer, a_port_in_use_is_an_error) {
  auto first = serve({});
  ASSERT_TRUE(first);
  replay_options o;
  o.answers_path = dir_ + "/answers0.jsonl";
  o.port = first->port();
  auto second = replay_server::start(o);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.message().find("cannot listen on 127.0.0.1:" + std::to_string(first->port())), std::string::npos)
      << second.message();
}

TEST_F(ReplayServer, stop_ends_wait) {
  auto s = serve({});
  ASSERT_TRUE(s);
  std::thread waiter([&] { s->wait(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s->stop();
  waiter.join();
  s->stop();  // a second stop is harmless
  SUCCEED();
}

}  // namespace
}  // namespace cudal1
