// Adds the bearer token to every request on its way to `ct mcp --http`, and changes nothing
// else: the conformance suite's client cannot be given headers, and its DNS-rebinding scenario
// needs the Host and Origin it sends to reach the server as sent.
//
// Usage: node proxy.mjs PORT_FILE TOKEN_FILE   (prints the port it listens on)
// Both files are read per request: the server starts after the proxy, so that it can be told
// the proxy's origin, which is the one the suite's client sends.
import http from "node:http";
import { readFileSync } from "node:fs";

const [portFile, tokenFile] = process.argv.slice(2);

const server = http.createServer((req, res) => {
  const targetPort = readFileSync(portFile, "utf8").trim();
  const token = readFileSync(tokenFile, "utf8").trim();
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const upstream = http.request(
    { host: "127.0.0.1", port: Number(targetPort), method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(upstream);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
