//! The floor a render is measured against (issue 40, `scripts/bench.sh`):
//! the least any tool turning transcripts into pages must do, on one
//! thread. It reads every file under the input, checks that it is UTF-8,
//! parses every line as JSON (a `serde_json::Value`), HTML-escapes every
//! string of it (keys and values) and writes the escaped text out, one file
//! per input file under the output directory.
//!
//! ```text
//! cargo run --release --example floor -- INPUT OUTPUT
//! ```
//!
//! It prints the bytes read, lines, lines that are not JSON, and bytes
//! written. No graph, no page structure, no search, no compression: what a
//! render costs beyond this is what cctree adds.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn escape_into(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        let rep: &[u8] = match c {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            b'\'' => b"&#39;",
            _ => continue,
        };
        out.extend_from_slice(&b[from..i]);
        out.extend_from_slice(rep);
        from = i + 1;
    }
    out.extend_from_slice(&b[from..]);
    out.push(b'\n');
}

/// Every string of `v`, escaped into `out` (depth-first, without recursion:
/// any depth).
fn walk(v: &Value, out: &mut Vec<u8>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => escape_into(out, s),
            Value::Array(a) => stack.extend(a.iter().rev()),
            Value::Object(o) => {
                for (k, v) in o.iter().rev() {
                    stack.push(v);
                    escape_into(out, k);
                }
            }
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: floor INPUT OUTPUT");
        std::process::exit(2);
    };
    let (input, output) = (Path::new(input), PathBuf::from(output));
    let (mut read, mut lines, mut bad, mut written) = (0u64, 0u64, 0u64, 0u64);
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(input)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        read += bytes.len() as u64;
        let text = String::from_utf8_lossy(&bytes);
        out.clear();
        for line in text.lines() {
            lines += 1;
            match serde_json::from_str::<Value>(line) {
                Ok(v) => walk(&v, &mut out),
                Err(_) => {
                    bad += 1;
                    escape_into(&mut out, line);
                }
            }
        }
        let rel = path.strip_prefix(input).unwrap_or(&path);
        let dest = output.join(rel).with_extension("html");
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).expect("creating the output directory");
        }
        std::fs::File::create(&dest).and_then(|mut f| f.write_all(&out)).expect("writing the output");
        written += out.len() as u64;
    }
    println!("read {read} bytes, {lines} lines ({bad} not JSON), wrote {written} bytes");
}
