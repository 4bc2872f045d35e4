#!/usr/bin/env python3
"""The user guide's link check (scripts/guide.sh runs it after `mdbook build`).

    scripts/guide-links.py BOOK_DIR

Reads every HTML page mdbook wrote into BOOK_DIR and checks each link and
image of it, offline:
  - a relative link must name a file of the book (a directory: its
    index.html), and its #fragment an id or name on that page;
  - a link into this repository on GitHub (…/blob/main/PATH, …/tree/main/PATH,
    …/edit/main/PATH, raw.githubusercontent.com/…/main/PATH) must name a
    file or folder of the checkout;
  - other http(s) links are counted, not fetched (CI has no network but the
    package registries).
Then the same for the relative links of the Markdown files outside the book
that point into it (README.md, tests/README.md): each must name a file of the
checkout. Prints every broken link with its page; exits 1 if there is one.
"""

import os
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def repository():
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        m = re.search(r'^repository = "([^"]+)"', f.read(), re.M)
    return m.group(1).rstrip("/")


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img", "link", "script", "source"):
                self.links.append((tag, a[key], self.getpos()[0]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/guide-links.py BOOK_DIR")
    book = os.path.abspath(sys.argv[1])
    repo = repository()
    slug = urlsplit(repo).path.strip("/")  # owner/name
    in_repo = [
        re.compile(re.escape(repo) + r"/(?:blob|tree|edit)/main/(.*)$"),
        re.compile(r"https://raw\.githubusercontent\.com/" + re.escape(slug) + r"/main/(.*)$"),
    ]
    pages = {}
    for d, _, files in os.walk(book):
        for f in files:
            if f.endswith(".html"):
                p = Page()
                path = os.path.join(d, f)
                with open(path, encoding="utf-8") as fh:
                    p.feed(fh.read())
                pages[path] = p
    if not pages:
        sys.exit(f"guide-links: no HTML page in {book}: run mdbook build first")

    broken = []
    checked = external = 0
    for path, page in sorted(pages.items()):
        rel_page = os.path.relpath(path, book)
        for tag, link, line in page.links:
            where = f"{rel_page}:{line}: {link}"
            if link.startswith(("mailto:", "javascript:", "data:")):
                continue
            checked += 1
            u = urlsplit(link)
            if u.scheme in ("http", "https"):
                for r in in_repo:
                    m = r.match(link.split("#")[0].split("?")[0])
                    if m:
                        target = os.path.join(ROOT, unquote(m.group(1)))
                        if not os.path.exists(target):
                            broken.append(f"{where}: no {m.group(1)} in the repository")
                        break
                else:
                    external += 1
                continue
            if u.scheme:
                broken.append(f"{where}: a scheme the check does not know")
                continue
            if u.path:
                target = os.path.normpath(os.path.join(os.path.dirname(path), unquote(u.path)))
            else:
                target = path
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not (target == book or target.startswith(book + os.sep)):
                broken.append(f"{where}: leads out of the book")
                continue
            if not os.path.isfile(target):
                broken.append(f"{where}: no such file in the book")
                continue
            if u.fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else set()
                if unquote(u.fragment) not in ids:
                    broken.append(f"{where}: no #{u.fragment} on {os.path.relpath(target, book)}")

    # The Markdown files that lead into the guide from outside it.
    for md in ("README.md", "tests/README.md"):
        path = os.path.join(ROOT, md)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)|src=\"([^\"]+)\"", text):
            link = m.group(1) or m.group(2)
            u = urlsplit(link)
            if u.scheme or not u.path:
                continue
            checked += 1
            line = text.count("\n", 0, m.start()) + 1
            target = os.path.normpath(os.path.join(os.path.dirname(path), unquote(u.path)))
            if not os.path.exists(target):
                broken.append(f"{md}:{line}: {link}: no such file in the repository")

    for b in broken:
        print(f"broken link: {b}", file=sys.stderr)
    print(
        f"guide-links: {len(pages)} pages, {checked} links checked, {external} to other sites not fetched, "
        f"{len(broken)} broken",
        file=sys.stderr,
    )
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
