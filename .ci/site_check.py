#!/usr/bin/env python3
"""The public site in a real browser (headless Chromium).

Usage: site_check.py WWW SHOTS [CHROMIUM]

WWW holds the site in WWW/site. Serves WWW over HTTP, then:
- every HTML page of the site: each link and picture it names must be a file of the site;
- in Chromium: a checker page loads the index and the game pages in a frame; each must
  load with a title and a heading, every picture must render (a decoded image with a
  size), and every link of the page must answer 200;
- screenshots of the index and a game page, phone-sized and desktop-sized, into SHOTS.
Exits 1 with one line per problem.
"""

import functools
import html.parser
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.parse


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v is not None:
                self.refs.append(v)


def static_links(site):
    problems = []
    pages = []
    for dirpath, _, files in os.walk(site):
        for f in files:
            if not f.endswith(".html"):
                continue
            path = os.path.join(dirpath, f)
            pages.append(os.path.relpath(path, site))
            p = Links()
            with open(path, encoding="utf-8") as fh:
                p.feed(fh.read())
            for ref in p.refs:
                target = urllib.parse.urlparse(ref)
                if target.scheme or target.netloc:
                    problems.append(f"{path}: a link leaves the site: {ref}")
                    continue
                dest = os.path.normpath(os.path.join(dirpath, urllib.parse.unquote(target.path)))
                if not dest.startswith(os.path.abspath(site)) or not os.path.isfile(dest):
                    problems.append(f"{path}: broken link {ref}")
    return sorted(pages), problems


CHECKER = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>site check</title></head>
<body><pre id="result">running</pre>
<iframe id="f" width="1280" height="900"></iframe>
<script>
const pages = %s;
const out = [];
function load(url) {
  return new Promise((resolve) => {
    const f = document.getElementById('f');
    const t = setTimeout(() => resolve(false), 10000);
    f.onload = () => { clearTimeout(t); resolve(true); };
    f.src = url;
  });
}
async function check(page) {
  const url = 'site/' + page;
  const r = await fetch(url);
  if (!r.ok) { out.push(page + ': answers ' + r.status); return; }
  if (!(await load(url))) { out.push(page + ': did not load'); return; }
  const d = document.getElementById('f').contentDocument;
  if (!d.title) out.push(page + ': no title');
  if (!d.querySelector('h1')) out.push(page + ': no heading');
  const css = d.styleSheets.length;
  if (css < 1) out.push(page + ': the stylesheet did not load');
  for (const img of d.images) {
    if (img.decode) { try { await img.decode(); } catch (e) {} }
    if (!img.complete || img.naturalWidth < 100 || img.naturalHeight < 100)
      out.push(page + ': picture ' + img.getAttribute('src') + ' did not render');
    if (!img.alt) out.push(page + ': picture ' + img.getAttribute('src') + ' has no alt text');
  }
  const seen = new Set();
  for (const a of d.querySelectorAll('a[href]')) {
    const href = a.href;
    if (seen.has(href)) continue;
    seen.add(href);
    const r = await fetch(href);
    if (!r.ok) out.push(page + ': link ' + a.getAttribute('href') + ' answers ' + r.status);
  }
  out.push('ok ' + page + ' (' + d.images.length + ' pictures, ' + seen.size + ' links)');
}
(async () => {
  for (const p of pages) await check(p);
  document.getElementById('result').textContent = JSON.stringify(out);
})();
</script></body></html>
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    www, shots = sys.argv[1], sys.argv[2]
    browser = sys.argv[3] if len(sys.argv) > 3 else "chromium"
    site = os.path.join(www, "site")
    pages, problems = static_links(site)
    if "index.html" not in pages:
        problems.append("the site has no index.html")
    games = sorted(p for p in pages if p.startswith("games/") and p.endswith("/index.html"))
    steps = sorted(p for p in pages if p.startswith("games/") and not p.endswith("/index.html"))
    # Each game's page and its first step's page.
    firsts = [min((s for s in steps if s.startswith(os.path.dirname(g) + "/")), default=None) for g in games]
    to_check = ["index.html"] + games + [s for s in firsts if s]
    with open(os.path.join(www, "check.html"), "w", encoding="utf-8") as fh:
        fh.write(CHECKER % json.dumps(to_check))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=www))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-dev-shm-usage", f"--user-data-dir={os.path.join(shots, 'profile')}"]
    os.makedirs(shots, exist_ok=True)
    try:
        dom = subprocess.run([browser, *flags, "--virtual-time-budget=60000", "--dump-dom", base + "check.html"],
                             capture_output=True, text=True, timeout=180).stdout
        start, end = dom.find('<pre id="result">'), dom.find("</pre>")
        raw = html.unescape(dom[start + len('<pre id="result">'):end]) if start >= 0 else ""
        try:
            said = json.loads(raw)
        except ValueError:
            said = []
            problems.append(f"the browser check did not finish: {raw[:200]!r}")
        for line in said:
            (print if line.startswith("ok ") else problems.append)(line)
        game = next((g for g in games if "shadow" in g), games[0] if games else "index.html")
        for name, page, size in [("index-phone", "index.html", "390,844"),
                                 ("index-desktop", "index.html", "1440,900"),
                                 ("game-phone", game, "390,1600"),
                                 ("game-desktop", game, "1440,1400")]:
            png = os.path.join(shots, name + ".png")
            subprocess.run([browser, *flags, f"--window-size={size}", f"--screenshot={png}", base + "site/" + page],
                           capture_output=True, timeout=120)
            if not os.path.isfile(png) or os.path.getsize(png) < 5000:
                problems.append(f"no screenshot of {page} at {size}")
            else:
                print(f"screenshot {png}")
    finally:
        server.shutdown()
    for p in problems:
        print("problem:", p)
    print(f"site check: {len(to_check)} pages in the browser, {len(pages)} pages' links read, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
