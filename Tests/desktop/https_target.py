"""The target of an http action: an HTTPS server on 127.0.0.1 that answers every request 201.

It prints "port <n>" once it listens, then one line per request, "request <METHOD> <path> <body>", flushed as it
comes, so a test can count the requests the gateway made and read what each carried.
"""
import argparse
import http.server
import ssl
import sys


class Target(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        print(f"request {self.command} {self.path} {body}", flush=True)
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = answer
    do_POST = answer

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    arguments = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Target)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.cert, arguments.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
