//===- HtmlReport.cpp - report.html: the report as one page with charts ---===//
#include "codegen/Report/HtmlReport.h"

#include "dialects/Common/ByteText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

using json = nlohmann::ordered_json;

namespace {

/// Text as XML character data or an attribute value.
std::string esc(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// A JSON number exactly (it reads back as the same double).
std::string exact(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

std::string fixed(double v, int digits = 1) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, v);
  return buffer;
}

std::string seconds(double s) {
  char buffer[48];
  if (s >= 1000)
    std::snprintf(buffer, sizeof(buffer), "%.0f s", s);
  else if (s >= 1)
    std::snprintf(buffer, sizeof(buffer), "%.3g s", s);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3g ms", s * 1e3);
  return buffer;
}

/// Sizes in the unit that fits, as the text report prints them.
std::string bytes(double b) { return plexus::bytesText(b); }

const char *color(const std::string &kind) {
  if (kind == "fwd")
    return "#4e79a7";
  if (kind == "bwd")
    return "#f28e2b";
  if (kind == "recompute")
    return "#e15759";
  if (kind == "compute")
    return "#76b7b2";
  if (kind == "comm")
    return "#59a14f";
  return "#dddddd";
}

constexpr int kLabel = 190, kPlot = 720, kWidth = kLabel + kPlot + 20;

/// Horizontal bars: (label, value, data attributes, highlighted), scaled
/// to the largest value.
struct Bar {
  std::string label;
  double value = 0;
  std::string text; ///< printed after the bar
  std::string data; ///< data- attributes of the bar
  bool highlight = false;
};

void bars(std::ostringstream &os, const std::vector<Bar> &list,
          const std::string &title) {
  double top = 0;
  for (const Bar &b : list)
    top = std::max(top, b.value);
  const int row = 18, height = int(list.size()) * row + 10;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
     << "\" height=\"" << height << "\" role=\"img\" aria-label=\""
     << esc(title) << "\">\n";
  for (size_t i = 0; i < list.size(); ++i) {
    const Bar &b = list[i];
    const double w = top > 0 ? b.value / top * (kPlot - 90) : 0;
    const int y = int(i) * row + 4;
    os << "<text x=\"" << kLabel - 6 << "\" y=\"" << y + 12
       << "\" text-anchor=\"end\" font-size=\"12\">" << esc(b.label)
       << "</text>\n";
    os << "<rect x=\"" << kLabel << "\" y=\"" << y << "\" width=\""
       << fixed(w, 2) << "\" height=\"" << row - 4 << "\" fill=\""
       << (b.highlight ? "#e15759" : "#4e79a7") << "\" " << b.data << "/>\n";
    os << "<text x=\"" << fixed(kLabel + w + 4, 2) << "\" y=\"" << y + 12
       << "\" font-size=\"12\">" << esc(b.text) << "</text>\n";
  }
  os << "</svg>\n";
}

void timeline(std::ostringstream &os, const json &t) {
  const int64_t columns = t["columns"].get<int64_t>();
  const double step = t["step_s"].get<double>();
  const double w = double(kPlot) / double(std::max<int64_t>(1, columns));
  int lanes = 0;
  for (const json &g : t["groups"])
    lanes += g.contains("stream") ? 2 : 1;
  const int lane = 16, gap = 6;
  const int height = lanes * lane + int(t["groups"].size()) * gap + 40;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
     << "\" height=\"" << height
     << "\" role=\"img\" aria-label=\"timeline of step 0\" data-step-s=\""
     << exact(step) << "\" data-columns=\"" << columns << "\">\n";
  int y = 4;
  for (const json &g : t["groups"]) {
    const std::string who = "ranks " + g["ranks"].get<std::string>() + " (" +
                            std::to_string(g["count"].get<int64_t>()) + ")";
    for (const char *which : {"ops", "stream"}) {
      if (!g.contains(which))
        continue;
      os << "<text x=\"" << kLabel - 6 << "\" y=\"" << y + 12
         << "\" text-anchor=\"end\" font-size=\"11\">"
         << esc(std::string(which) == "ops" ? who : "stream") << "</text>\n";
      for (const json &run : g[which]) {
        const std::string kind = run[0].get<std::string>();
        if (kind == "idle")
          continue;
        os << "<rect x=\"" << fixed(kLabel + run[1].get<int64_t>() * w, 2)
           << "\" y=\"" << y << "\" width=\""
           << fixed(run[2].get<int64_t>() * w, 2) << "\" height=\"" << lane - 2
           << "\" fill=\"" << color(kind) << "\" data-kind=\"" << kind
           << "\"/>\n";
      }
      y += lane;
    }
    y += gap;
  }
  // The time axis: five ticks.
  for (int i = 0; i <= 4; ++i) {
    const double x = kLabel + kPlot * i / 4.0;
    os << "<line x1=\"" << fixed(x, 2) << "\" y1=\"" << y << "\" x2=\""
       << fixed(x, 2) << "\" y2=\"" << y + 4 << "\" stroke=\"#333\"/>\n";
    os << "<text x=\"" << fixed(x, 2) << "\" y=\"" << y + 16
       << "\" text-anchor=\"middle\" font-size=\"11\">"
       << esc(seconds(step * i / 4.0)) << "</text>\n";
  }
  os << "</svg>\n<p class=\"legend\">";
  for (const char *kind : {"fwd", "bwd", "recompute", "compute", "comm"})
    os << "<span style=\"background:" << color(kind)
       << "\">&#160;&#160;</span> " << kind << " &#160; ";
  os << "(each column is the step / " << columns
     << ", coloured by what fills most of it; blank: idle)";
  if (t["groups_not_shown"].get<int64_t>() > 0)
    os << "; " << t["groups_not_shown"].get<int64_t>()
       << " more groups of ranks not shown";
  os << "</p>\n";
}

void trainJob(std::ostringstream &os, const json &job) {
  const json &plan = job["plan"];
  os << "<p>Plan <b>" << esc(plan.value("strategy", "")) << "</b>: ";
  const json &l = plan["layout"];
  os << "sp " << esc(l["sp"].dump()) << ", tp " << l["tp"].get<int64_t>()
     << ", cp " << l["cp"].get<int64_t>() << ", pp " << l["pp"].get<int64_t>()
     << ", ZeRO-" << plan["zero"].get<int64_t>() << ", "
     << esc(plan["checkpoint"].get<std::string>()) << " checkpointing.</p>\n";
  if (plan.contains("note"))
    os << "<p class=\"note\">" << esc(plan["note"].get<std::string>())
       << "</p>\n";
  os << "<table>\n";
  auto row = [&](const std::string &name, const std::string &value,
                 const std::string &key, double exactValue) {
    os << "<tr><th>" << esc(name) << "</th><td data-key=\"" << key
       << "\" data-value=\"" << exact(exactValue) << "\">" << esc(value)
       << "</td></tr>\n";
  };
  const double predicted = job["predicted_step_time_s"].get<double>();
  row("predicted step", seconds(predicted), "predicted_step_time_s", predicted);
  row("planned step", seconds(job["planned_step_time_s"].get<double>()),
      "planned_step_time_s", job["planned_step_time_s"].get<double>());
  if (job["mfu"].is_number())
    row("MFU", fixed(100 * job["mfu"].get<double>()) + " %", "mfu",
        job["mfu"].get<double>());
  if (job.contains("lower_bound"))
    row("lower bound", seconds(job["lower_bound"]["step_time_s"].get<double>()),
        "lower_bound.step_time_s",
        job["lower_bound"]["step_time_s"].get<double>());
  if (job.contains("memory")) {
    row("peak memory", bytes(job["memory"]["peak_bytes"].get<double>()),
        "memory.peak_bytes", job["memory"]["peak_bytes"].get<double>());
    row("usable per chip", bytes(job["memory"]["usable_bytes"].get<double>()),
        "memory.usable_bytes", job["memory"]["usable_bytes"].get<double>());
  }
  os << "</table>\n";

  if (job.contains("timeline")) {
    os << "<h3>Step 0, simulated: each group of ranks' ops and "
          "communication stream</h3>\n";
    timeline(os, job["timeline"]);
  }

  if (job.contains("explored")) {
    os << "<h3>Every plan judged (step 0), fastest first; the plan in "
          "red</h3>\n";
    std::vector<Bar> list;
    std::vector<std::string> infeasible;
    for (const json &e : job["explored"]) {
      const std::string name = e["plan"].get<std::string>();
      if (!e["feasible"].get<bool>()) {
        infeasible.push_back(name + ": " + e["why_not"].get<std::string>());
        continue;
      }
      const double s = e["predicted_step_time_s"].get<double>();
      std::string text = seconds(s);
      if (!e["allowed_by_strategy"].get<bool>())
        text += " (ruled out by the strategy)";
      list.push_back({name + " (" + e["role"].get<std::string>() + ")", s, text,
                      "data-plan=\"" + esc(name) + "\" data-role=\"" +
                          esc(e["role"].get<std::string>()) +
                          "\" data-seconds=\"" + exact(s) + "\"",
                      e["chosen"].get<bool>()});
    }
    bars(os, list, "predicted step time of every plan judged");
    if (!infeasible.empty()) {
      os << "<ul class=\"infeasible\">\n";
      for (const std::string &line : infeasible)
        os << "<li>" << esc(line) << "</li>\n";
      os << "</ul>\n";
    }
  }

  if (job.contains("peak_memory_bytes") &&
      job["peak_memory_bytes"].is_array()) {
    const json &peaks = job["peak_memory_bytes"];
    const double usable = job.contains("memory")
                              ? job["memory"]["usable_bytes"].get<double>()
                              : 0.0;
    // At most 256 bars: ranks in consecutive buckets, each its largest.
    const size_t n = peaks.size(), shown = std::min<size_t>(n, 256);
    const size_t per = (n + shown - 1) / std::max<size_t>(1, shown);
    double top = usable;
    for (const json &p : peaks)
      top = std::max(top, p.get<double>());
    os << "<h3>Peak memory per rank against the " << esc(bytes(usable))
       << " usable per chip"
       << (per > 1 ? " (each bar the largest of " + std::to_string(per) +
                         " consecutive ranks)"
                   : std::string())
       << "</h3>\n";
    const int height = 160;
    const double w = double(kPlot) / double((n + per - 1) / per);
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
       << "\" height=\"" << height + 24
       << "\" role=\"img\" aria-label=\"peak memory per rank\">\n";
    for (size_t b = 0, i = 0; i < n; ++b, i += per) {
      double most = 0;
      for (size_t r = i; r < std::min(n, i + per); ++r)
        most = std::max(most, peaks[r].get<double>());
      const double h = top > 0 ? most / top * height : 0;
      os << "<rect x=\"" << fixed(kLabel + b * w, 2) << "\" y=\""
         << fixed(height - h + 4, 2) << "\" width=\""
         << fixed(std::max(0.5, w - 1), 2) << "\" height=\"" << fixed(h, 2)
         << "\" fill=\""
         << (most > usable && usable > 0 ? "#e15759" : "#4e79a7")
         << "\" data-first-rank=\"" << i << "\" data-bytes=\"" << exact(most)
         << "\"/>\n";
    }
    if (usable > 0) {
      const double y = height - usable / top * height + 4;
      os << "<line x1=\"" << kLabel << "\" y1=\"" << fixed(y, 2) << "\" x2=\""
         << kLabel + kPlot << "\" y2=\"" << fixed(y, 2)
         << "\" stroke=\"#e15759\" stroke-dasharray=\"4 3\"/>\n";
      os << "<text x=\"" << kLabel - 6 << "\" y=\"" << fixed(y + 4, 2)
         << "\" text-anchor=\"end\" font-size=\"11\">usable "
         << esc(bytes(usable)) << "</text>\n";
    }
    os << "<text x=\"" << kLabel << "\" y=\"" << height + 20
       << "\" font-size=\"11\">rank 0</text>\n<text x=\"" << kLabel + kPlot
       << "\" y=\"" << height + 20
       << "\" text-anchor=\"end\" font-size=\"11\">rank " << n - 1
       << "</text>\n</svg>\n";
  }
}

void serveJob(std::ostringstream &os, const json &job) {
  const json &l = job["layout"];
  os << "<p>Layout: " << l["instances"].get<int64_t>() << " x (pp "
     << l["pp"].get<int64_t>() << " x ep " << l["ep"].get<int64_t>() << ", "
     << (l["dp_attention"].get<bool>() ? "DP attention" : "TP attention")
     << ") on " << l["chips"].get<int64_t>() << " chips.</p>\n";
  const json &jct = job["jct"];
  os << "<table>\n";
  for (const auto &[key, label] :
       std::vector<std::pair<std::string, std::string>>{
           {"overall_s", "job completion time"},
           {"turn_mean_s", "turn, mean"},
           {"turn_p50_s", "turn, P50"},
           {"turn_p90_s", "turn, P90"},
           {"turn_p99_s", "turn, P99"}})
    os << "<tr><th>" << esc(label) << "</th><td data-key=\"jct." << key
       << "\" data-value=\"" << exact(jct[key].get<double>()) << "\">"
       << esc(seconds(jct[key].get<double>())) << "</td></tr>\n";
  os << "</table>\n";
  if (job.contains("policy") && job["policy"].contains("interval_sweep")) {
    const int64_t chosen = job["policy"]["interval"].get<int64_t>();
    os << "<h3>Wave interval: job completion time at each interval tried "
          "(the plan's in red)</h3>\n";
    std::vector<Bar> list;
    for (const json &p : job["policy"]["interval_sweep"]) {
      const int64_t interval = p["interval"].get<int64_t>();
      const double s = p["overall_s"].get<double>();
      list.push_back({"interval " + std::to_string(interval), s, seconds(s),
                      "data-interval=\"" + std::to_string(interval) +
                          "\" data-seconds=\"" + exact(s) + "\"",
                      interval == chosen});
    }
    bars(os, list, "job completion time by wave interval");
  }
  if (job.contains("baselines")) {
    os << "<h3>The plan against the baselines (job completion time)</h3>\n";
    std::vector<Bar> list = {{"the plan", jct["overall_s"].get<double>(),
                              seconds(jct["overall_s"].get<double>()),
                              "data-plan=\"plan\" data-seconds=\"" +
                                  exact(jct["overall_s"].get<double>()) + "\"",
                              true}};
    for (const auto &[name, b] : job["baselines"].items())
      if (b.contains("jct"))
        list.push_back({name, b["jct"]["overall_s"].get<double>(),
                        seconds(b["jct"]["overall_s"].get<double>()) + " on " +
                            std::to_string(b.value("chips", int64_t(0))) +
                            " chips",
                        "data-plan=\"" + esc(name) + "\" data-seconds=\"" +
                            exact(b["jct"]["overall_s"].get<double>()) + "\"",
                        false});
    bars(os, list, "job completion time of the plan and the baselines");
  }
}

} // namespace

std::string plexus::report::htmlReport(const json &report,
                                       const std::string &source) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
        "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>"
     << esc(source) << ": Plexus report</title>\n<style>\n"
     << "body{font-family:sans-serif;max-width:980px;margin:1em auto;"
        "color:#222}\n"
        "table{border-collapse:collapse;margin:.5em 0}\n"
        "th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}\n"
        "th{background:#f4f4f4;font-weight:normal}\n"
        ".note{color:#555}\n.legend span{display:inline-block;width:1em}\n"
        "</style>\n</head>\n<body>\n<h1>"
     << esc(source) << "</h1>\n";
  for (const json &job : report["jobs"]) {
    os << "<section>\n<h2>" << esc(job["kind"].get<std::string>()) << " job '"
       << esc(job["name"].get<std::string>()) << "'";
    if (job.contains("chips"))
      os << " on " << job["chips"].get<int64_t>() << " chips";
    os << "</h2>\n";
    const json &m = job["model"];
    os << "<p>Model " << esc(m["name"].get<std::string>()) << ": "
       << esc(m["kind"].get<std::string>()) << ", "
       << fixed(m["parameters"].get<double>() / 1e9, 2) << " B parameters, "
       << m["layers"].get<int64_t>() << " layers, "
       << esc(m["dtype"].get<std::string>()) << ". Fabric "
       << esc(job["fabric"]["name"].get<std::string>()) << ": "
       << job["fabric"]["chips"].get<int64_t>() << " x "
       << esc(job["fabric"]["chip"].get<std::string>()) << ".</p>\n";
    if (job.contains("error"))
      os << "<p class=\"note\">Not planned: "
         << esc(job["error"].get<std::string>()) << "</p>\n";
    else if (job.contains("not_planned"))
      os << "<p class=\"note\">Not planned: "
         << esc(job["not_planned"].get<std::string>()) << "</p>\n";
    else if (job.contains("plan"))
      trainJob(os, job);
    else if (job.contains("jct"))
      serveJob(os, job);
    os << "</section>\n";
  }
  if (report["jobs"].empty())
    os << "<p>The spec declares no train or serve job.</p>\n";
  os << "</body>\n</html>\n";
  return os.str();
}
