"""The Grafana dashboard against the gateway's metrics: every family a panel queries is one the gateway has (exposed
at /metrics, or declared in the metrics' source when its series come with their first event), and every family has a
panel. Usage: check_dashboard.py METRICS_TEXT DASHBOARD_JSON METRICS_SOURCE"""
import json
import re
import sys

exposed = set(re.findall(r"^# HELP (\S+)", open(sys.argv[1]).read(), re.M))
declared = set(re.findall(r'"(richpush_[a-z_]+_total|richpush_[a-z_]+_open)"', open(sys.argv[3]).read()))
dashboard = json.load(open(sys.argv[2]))
queried = set()
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        queried |= {re.sub(r"_(bucket|sum|count)$", "", name) for name in re.findall(r"\brichpush_[a-z_]+", target["expr"])}
unknown = queried - exposed - declared
missing = (exposed | declared) - queried
if not queried or unknown or missing:
    sys.exit(f"the dashboard queries families the gateway lacks: {sorted(unknown)}; it shows none of: {sorted(missing)}")
print(f"the dashboard shows every family of the gateway's: {', '.join(sorted(queried))}")
