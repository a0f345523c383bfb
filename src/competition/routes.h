// The competition's HTTP side, on the serve command's server: the API under
// /v1/competition, the board's live events, and the pages with their bundled
// libraries (no CDN: the page needs nothing beyond this server).
//
// Routes:
//   GET  /                                  the leaderboard page (with the editor to submit)
//   GET  /submissions/ID                    a submission's page
//   GET  /static/NAME                       the page's script, style and bundled libraries
//   GET  /v1/competition                    name, window, state, ranking, limits, tasks (public sources)
//   GET  /v1/competition/board              the board (board.h)
//   GET  /v1/competition/events             Server-Sent Events: "board" with the board at each change
//   GET  /v1/competition/me                 (bearer) the entrant the token belongs to
//   POST /v1/competition/submissions        (bearer) {"task", "code", "format", "wait"} -> 202 (200 when waited)
//   GET  /v1/competition/submissions        (bearer) the entrant's own submissions
//   GET  /v1/competition/submissions/ID     a submission (its code only to its entrant)
#pragma once

#include <atomic>
#include <map>
#include <string>

#include <httplib.h>

#include "base/result.h"
#include "competition/host.h"

namespace cudal1 {

/// The page and its files, read once at start from the data folder's web/.
struct competition_pages {
  std::string html;  // the page's template
  struct asset {
    std::string content_type, body;
  };
  std::map<std::string, asset> assets;  // by name under /static/
  /// Errors: the page or its script is missing (a build without web/); the
  /// bundled libraries may be missing (the page then says so and falls back
  /// to a plain text box and no chart).
  static result<competition_pages> load();
};

struct competition_routes_options {
  double wait_timeout_s = 3600;  // the longest a submission with "wait" is waited for
  int max_event_clients = 16;    // live pages at once (each holds an HTTP thread); more poll
};

/// Adds the routes to `server`. `host` and `pages` outlive it.
void add_competition_routes(httplib::Server& server, competition_host& host, const competition_pages& pages,
                            const competition_routes_options& options);

}  // namespace cudal1
