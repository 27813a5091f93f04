"""A loopback OpenTelemetry collector for the tracing tests: takes OTLP/HTTP JSON at POST /v1/traces, decodes each body
with opentelemetry-proto (PyPI) as an ExportTraceServiceRequest (a body it cannot decode is answered 400 and noted),
and appends every span it holds to OUTFILE as a JSON line: name, kind, ids in hex, attributes as plain values.

  otlp_receiver.py PORT OUTFILE
"""
import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

port, out = int(sys.argv[1]), sys.argv[2]


def hex_to_base64(document):
    """OTLP's JSON writes ids in hex where protobuf's JSON mapping reads base64, as the OpenTelemetry collector converts."""
    for resource in document.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for field in ("traceId", "spanId", "parentSpanId"):
                    if span.get(field):
                        span[field] = base64.b64encode(bytes.fromhex(span[field])).decode()
                for link in span.get("links", []):
                    for field in ("traceId", "spanId"):
                        link[field] = base64.b64encode(bytes.fromhex(link[field])).decode()
    return document


def plain(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            assert self.path == "/v1/traces", f"posted to {self.path}"
            assert self.headers.get("Content-Type") == "application/json", f"Content-Type {self.headers.get('Content-Type')}"
            request = json_format.Parse(json.dumps(hex_to_base64(json.loads(body))), ExportTraceServiceRequest())
        except Exception as error:  # noqa: BLE001: every refusal is the test's to see
            with open(out, "a") as file:
                file.write(json.dumps({"error": str(error)}) + "\n")
            self.send_response(400)
            self.end_headers()
            return
        with open(out, "a") as file:
            for resource in request.resource_spans:
                service = {kv.key: plain(kv.value) for kv in resource.resource.attributes}.get("service.name")
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        file.write(json.dumps({
                            "service": service, "name": span.name, "kind": span.kind, "traceId": span.trace_id.hex(),
                            "spanId": span.span_id.hex(), "parentSpanId": span.parent_span_id.hex(),
                            "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                            "attributes": {kv.key: plain(kv.value) for kv in span.attributes},
                        }) + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
