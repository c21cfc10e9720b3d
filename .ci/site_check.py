#!/usr/bin/env python3
"""The public site in a real browser (headless Chromium).

Usage: site_check.py WWW SHOTS [CHROMIUM]

WWW holds the site in WWW/site. Serves WWW over HTTP, then:
- every HTML page of the site: each link and picture it names must be a file of the site;
- in Chromium: a checker page loads the index and the game pages in a frame; each must
  load with a title and a heading, every picture must render (a decoded image with a
  size), and every link of the page must answer 200;
- every page of the site again in a frame as wide as a phone (390 px) and in one as wide
  as a desktop (1280 px): the page must be no wider than the frame (nothing cut at its edge
  or pushing it sideways), a box whose content is wider than itself (a table, a report)
  must scroll, an order must stay on one line, and a board picture must fit the width and
  link to itself at full size;
- screenshots of the index, a game page and a phase's page, phone-sized and desktop-sized,
  into SHOTS.
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
<iframe id="phone" width="390" height="844"></iframe>
<iframe id="desk" width="1280" height="900"></iframe>
<script>
const [pages, every] = %s;
const out = [];
function load(url, frame = 'f') {
  return new Promise((resolve) => {
    const f = document.getElementById(frame);
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
// The distinct lines a cell's text is set on.
function lines(el) {
  const r = el.ownerDocument.createRange();
  r.selectNodeContents(el);
  const tops = new Set();
  for (const q of r.getClientRects()) if (q.width > 0) tops.add(Math.round(q.top));
  return tops.size;
}
async function fits(page, frame, width) {
  const url = 'site/' + page;
  if (!(await load(url, frame))) { out.push(page + ': did not load at ' + width + ' px'); return; }
  const d = document.getElementById(frame).contentDocument;
  for (const img of d.images) { if (img.decode) { try { await img.decode(); } catch (e) {} } }
  const root = d.documentElement;
  const at = ' at ' + width + ' px';
  if (root.clientWidth > width) out.push(page + ': the frame is ' + root.clientWidth + ' px wide, not ' + width);
  if (root.scrollWidth > root.clientWidth)
    out.push(page + ': the page is ' + root.scrollWidth + ' px wide' + at);
  // Whatever is wider than its box must scroll there, not be cut off or spill out.
  for (const el of d.querySelectorAll('pre, .scroll')) {
    const css = getComputedStyle(el);
    if (el.scrollWidth > el.clientWidth + 1 && !['auto', 'scroll'].includes(css.overflowX))
      out.push(page + ': a ' + el.tagName.toLowerCase() + ' is cut (' + el.scrollWidth + ' px in ' +
               el.clientWidth + ')' + at);
    const box = el.getBoundingClientRect();
    if (box.right > root.clientWidth + 1)
      out.push(page + ': a ' + el.tagName.toLowerCase() + ' reaches ' + Math.round(box.right) + ' px' + at);
  }
  for (const td of d.querySelectorAll('td.order')) {
    if (lines(td) > 1) out.push(page + ': the order ' + JSON.stringify(td.textContent) + ' is broken across lines' + at);
  }
  for (const img of d.querySelectorAll('img.board')) {
    const box = img.getBoundingClientRect();
    if (box.width < 0.8 * Math.min(width - 40, img.naturalWidth) || box.right > root.clientWidth + 1)
      out.push(page + ': the board is ' + Math.round(box.width) + ' px wide' + at);
    const a = img.closest('a[href]');
    if (!a || a.getAttribute('href') !== img.getAttribute('src'))
      out.push(page + ': the board does not open at full size');
  }
  out.push('fits ' + page + at + ' (' + root.scrollWidth + ' px)');
}
(async () => {
  for (const p of pages) await check(p);
  for (const p of every) { await fits(p, 'phone', 390); await fits(p, 'desk', 1280); }
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
    site = os.path.abspath(os.path.join(www, "site"))
    pages, problems = static_links(site)
    if "index.html" not in pages:
        problems.append("the site has no index.html")
    games = sorted(p for p in pages if p.startswith("games/") and p.endswith("/index.html"))
    steps = sorted(p for p in pages if p.startswith("games/") and not p.endswith("/index.html"))
    # Each game's page and its first step's page.
    firsts = [min((s for s in steps if s.startswith(os.path.dirname(g) + "/")), default=None) for g in games]
    to_check = ["index.html"] + games + [s for s in firsts if s]
    with open(os.path.join(www, "check.html"), "w", encoding="utf-8") as fh:
        fh.write(CHECKER % json.dumps([to_check, pages]))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=www))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-dev-shm-usage", f"--user-data-dir={os.path.join(shots, 'profile')}"]
    os.makedirs(shots, exist_ok=True)
    try:
        dom = subprocess.run([browser, *flags, "--virtual-time-budget=300000", "--dump-dom", base + "check.html"],
                             capture_output=True, text=True, timeout=600).stdout
        start, end = dom.find('<pre id="result">'), dom.find("</pre>")
        raw = html.unescape(dom[start + len('<pre id="result">'):end]) if start >= 0 else ""
        try:
            said = json.loads(raw)
        except ValueError:
            said = []
            problems.append(f"the browser check did not finish: {raw[:200]!r}")
        fitted = [line for line in said if line.startswith("fits ")]
        for line in said:
            if line.startswith("ok "):
                print(line)
            elif not line.startswith("fits "):
                problems.append(line)
        for width in ("390", "1280"):
            widths = [(int(line.rsplit("(", 1)[1].split()[0]), line.split()[1]) for line in fitted
                      if f" at {width} px " in line]
            if widths:
                print(f"widest page at {width} px: {max(widths)[1]} ({max(widths)[0]} px), {len(widths)} pages")
        if len(fitted) != 2 * len(pages):
            problems.append(f"{len(fitted)} of {2 * len(pages)} page widths were measured")
        game = next((g for g in games if "shadow" in g), games[0] if games else "index.html")
        phase = next((s for s in firsts if s and "shadow" in s), game)
        small = next((g for g in games if "overdue" in g), game)
        for name, page, size in [("index-phone", "index.html", "390,844"),
                                 ("index-desktop", "index.html", "1440,900"),
                                 ("game-phone", game, "390,1600"),
                                 ("game-desktop", game, "1440,1400"),
                                 ("phase-phone", phase, "390,2400"),
                                 ("phase-desktop", phase, "1280,1600"),
                                 ("small-phone", small, "390,1200"),
                                 ("small-desktop", small, "1280,900")]:
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
