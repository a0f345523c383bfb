#include "competition/routes.h"

#include <memory>

#include "base/fs.h"
#include "base/http_json.h"
#include "base/json_text.h"

namespace cudal1 {

using nlohmann::json;

namespace {

// The API's answers are live state: never kept by a browser's cache.
void send_fresh_json(httplib::Response& res, int status, const json& body) {
  res.set_header("Cache-Control", "no-store");
  send_json(res, status, body);
}

std::string html_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string bearer_of(const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization"), prefix = "Bearer ";
  return auth.rfind(prefix, 0) == 0 ? auth.substr(prefix.size()) : "";
}

// The entrant a request's bearer token belongs to: null without a token
// (when not `required`); 401 for a token that is no entrant's.
const participant* entrant_of(const httplib::Request& req, competition_host& host, bool required) {
  std::string token = bearer_of(req);
  if (token.empty()) {
    if (!required && !req.has_header("Authorization")) return nullptr;
    host.note_refusal(401);
    throw http_failure{401, "this route wants your entrant token: Authorization: Bearer TOKEN"};
  }
  const participant* p = host.definition().find_by_token(token);
  if (!p) {
    host.note_refusal(401);
    throw http_failure{401, "the token is not one of this competition's entrants'"};
  }
  return p;
}

std::string string_field(const json& body, const char* key, bool required) {
  if (!body.contains(key)) {
    if (required) throw http_failure{400, std::string("the submission has no \"") + key + "\""};
    return "";
  }
  if (!body[key].is_string()) throw http_failure{400, std::string("\"") + key + "\" must be a string"};
  return body[key].get<std::string>();
}

int64_t id_of(const httplib::Request& req) {
  try {
    return std::stoll(req.matches[1]);
  } catch (const std::exception&) {
    throw http_failure{404, "no submission " + std::string(req.matches[1])};
  }
}

json full_view(competition_host& host, const submission& s, bool owner) {
  json v = submission_view(s, owner);
  v["standing_now"] = host.standing(s);
  v["url"] = "/submissions/" + std::to_string(s.id);
  return v;
}

// One handler: its work, and any failure as a JSON error with its status.
template <class Work>
httplib::Server::Handler handler(Work work) {
  return [work](const httplib::Request& req, httplib::Response& res) {
    answer_json(res, [&] { work(req, res); });
    if (res.status >= 400) res.set_header("Cache-Control", "no-store");
  };
}

void add_page_routes(httplib::Server& server, competition_host& host, const competition_pages& pages) {
  std::string page = pages.html;
  const std::string key = "{{TITLE}}";
  for (size_t at; (at = page.find(key)) != std::string::npos;) page.replace(at, key.size(), html_escaped(host.definition().name));
  auto serve_page = [page](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(page, "text/html; charset=utf-8");
  };
  server.Get("/", serve_page);
  server.Get(R"(/submissions/(\d+))", serve_page);
  server.Get(R"(/static/([A-Za-z0-9_.-]+))", handler([&pages](const httplib::Request& req, httplib::Response& res) {
    auto it = pages.assets.find(req.matches[1]);
    if (it == pages.assets.end()) throw http_failure{404, "no file " + std::string(req.matches[1])};
    res.set_header("Cache-Control", "no-cache");
    res.set_content(it->second.body, it->second.content_type);
  }));
  server.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
}

// The board's changes as Server-Sent Events: the board at once, then at each
// change, and a comment every 15 s so that proxies keep the stream open.
void add_event_route(httplib::Server& server, competition_host& host, const competition_routes_options& options) {
  auto clients = std::make_shared<std::atomic<int>>(0);
  server.Get("/v1/competition/events", handler([&host, clients, max = options.max_event_clients](
                                                    const httplib::Request&, httplib::Response& res) {
    if (clients->fetch_add(1) >= max) {
      --*clients;
      throw http_failure{503, "too many live pages at once; poll GET /v1/competition/board", 5};
    }
    auto seen = std::make_shared<int64_t>(-1);
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [&host, seen](size_t, httplib::DataSink& sink) {
          std::string text;
          if (*seen < 0) text = "retry: 3000\n";
          if (*seen >= 0) {
            int64_t now = host.wait_change(*seen, 15);
            if (host.stopping()) {
              sink.done();
              return true;
            }
            if (now == *seen) {
              text = ": still here\n\n";
              return sink.write(text.data(), text.size());
            }
          }
          json board = host.board();
          *seen = board["version"].get<int64_t>();
          text += "event: board\ndata: " + json_text(board) + "\n\n";
          return sink.write(text.data(), text.size());
        },
        [clients](bool) { --*clients; });
  }));
}

}  // namespace

result<competition_pages> competition_pages::load() {
  auto dir = data_dir();
  if (!dir) return dir.err();
  competition_pages p;
  auto html = read_file(*dir + "/web/competition.html");
  if (!html) return make_error("the competition page is missing (" + *dir + "/web/competition.html): " + html.message());
  p.html = *html;
  struct file {
    const char *name, *type;
    bool required;
  };
  for (const file& f : {file{"competition.js", "text/javascript; charset=utf-8", true},
                        file{"competition.css", "text/css; charset=utf-8", true},
                        file{"chart.umd.js", "text/javascript; charset=utf-8", false},
                        file{"editor.bundle.js", "text/javascript; charset=utf-8", false}}) {
    auto body = read_file(*dir + "/web/" + f.name);
    if (!body) {
      if (f.required) return make_error("the competition page's " + std::string(f.name) + " is missing: " + body.message());
      continue;  // the page says what it lacks
    }
    p.assets[f.name] = {f.type, *body};
  }
  return p;
}

void add_competition_routes(httplib::Server& server, competition_host& host, const competition_pages& pages,
                            const competition_routes_options& options) {
  add_page_routes(server, host, pages);
  add_event_route(server, host, options);
  server.Get("/v1/competition", handler([&host](const httplib::Request&, httplib::Response& res) {
    send_fresh_json(res, 200, host.definition().public_json(std::time(nullptr)));
  }));
  server.Get("/v1/competition/board", handler([&host](const httplib::Request&, httplib::Response& res) {
    send_fresh_json(res, 200, host.board());
  }));
  server.Get("/v1/competition/me", handler([&host](const httplib::Request& req, httplib::Response& res) {
    send_fresh_json(res, 200, {{"participant", entrant_of(req, host, true)->name}});
  }));
  server.Post("/v1/competition/submissions", handler([&host, options](const httplib::Request& req, httplib::Response& res) {
    const participant* who = entrant_of(req, host, true);  // before anything is read: a stranger stores nothing
    json body = parse_json_body(req);
    if (!body.is_object()) throw http_failure{400, "a submission is a JSON object {\"task\", \"code\"}"};
    for (const auto& [k, v] : body.items())
      if (k != "task" && k != "code" && k != "format" && k != "wait")
        throw http_failure{400, "unknown field '" + k + "' (a submission has task, code, format, wait)"};
    std::string task = string_field(body, "task", true), code = string_field(body, "code", true);
    std::string format = string_field(body, "format", false);
    if (body.contains("wait") && !body["wait"].is_boolean()) throw http_failure{400, "\"wait\" must be true or false"};
    auto taken = host.submit(*who, task, code, format);
    if (auto* r = std::get_if<refusal>(&taken)) throw http_failure{r->status, r->message, r->retry_after_s};
    int64_t id = std::get<int64_t>(taken);
    if (body.value("wait", false)) {
      auto s = host.wait_judged(id, options.wait_timeout_s);
      if (s && (s->state == "done" || s->state == "failed")) {
        send_fresh_json(res, 200, full_view(host, *s, true));
        return;
      }
    }
    auto s = host.get(id);
    send_fresh_json(res, 202, full_view(host, *s, true));
  }));
  server.Get("/v1/competition/submissions", handler([&host](const httplib::Request& req, httplib::Response& res) {
    const participant* who = entrant_of(req, host, true);
    json list = json::array();
    for (const auto& s : host.submissions_of(who->name)) list.push_back(submission_summary(s));
    send_fresh_json(res, 200, {{"participant", who->name}, {"submissions", list}});
  }));
  server.Get(R"(/v1/competition/submissions/(\d+))", handler([&host](const httplib::Request& req, httplib::Response& res) {
    const participant* who = entrant_of(req, host, false);
    auto s = host.get(id_of(req));
    if (!s) throw http_failure{404, "no submission " + std::string(req.matches[1])};
    send_fresh_json(res, 200, full_view(host, *s, who && who->name == s->participant));
  }));
}

}  // namespace cudal1
