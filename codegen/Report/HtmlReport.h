//===- HtmlReport.h - report.html: the report as one page with charts -*- C++
//-*-===//
//
// `plxc -o DIR` writes DIR/report.html: one self-contained page (no script,
// no network) rendered from the JSON report: for each train job the plan,
// its numbers, a per-rank timeline of the simulated step 0 (ranks grouped
// when their lanes are the same: the report's "timeline"), the plans judged
// as bars against the plan, and each rank's peak memory against the usable
// memory; for each serve job the layout, the JCT percentiles, the
// wave-interval sweep and the baselines. Charts are inline SVG. The page is
// well-formed XML (XHTML) and every figure it draws carries its number from
// the JSON in a data- attribute (test/Tools/check-report-html.py).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_CODEGEN_REPORT_HTMLREPORT_H
#define PLEXUS_CODEGEN_REPORT_HTMLREPORT_H

#include <nlohmann/json.hpp>

#include <string>

namespace plexus::report {

std::string htmlReport(const nlohmann::ordered_json &report,
                       const std::string &source);

} // namespace plexus::report

#endif // PLEXUS_CODEGEN_REPORT_HTMLREPORT_H
