//! Nothing readable is lost quietly: what a transcript holds that cctree
//! cannot show whole is shown as a placeholder naming it, or is a warning
//! at its file:line.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::hostile::{all_text, gemini, lines};
use crate::support::cctree;

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/// `%PDF-1.4\n`, in base64.
const PDF: &str = "JVBERi0xLjQK";

/// The Gemini API parts of a prompt with attachments: an image, a PDF, an
/// image whose type and data are markup, a file by URI.
fn attached_parts(tag: &str) -> Value {
    json!([
        {"text": format!("{tag}: look at these")},
        {"inlineData": {"mimeType": "image/png", "data": PNG}},
        {"inlineData": {"mimeType": "application/pdf", "data": PDF}},
        {"inlineData": {"mimeType": "image/png\"><script>alert(1)</script>", "data": "<script>alert(2)</script>"}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/report.pdf"}},
    ])
}

/// A Qwen Code projects folder under `root`: the fixture's project, and a
/// session of one prompt whose parts are `parts`.
fn qwen(root: &Path, parts: &Value) -> PathBuf {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-0.24.4/headless/projects");
    let dir = root.join("qwen/projects");
    let project = std::fs::read_dir(&fx).unwrap().flatten().next().unwrap().path();
    let chats = project.join("chats");
    let first = std::fs::read_dir(&chats).unwrap().flatten().next().unwrap().path();
    let mut v: Value = serde_json::from_str(std::fs::read_to_string(first).unwrap().lines().next().unwrap()).unwrap();
    v["message"]["parts"] = parts.clone();
    v["sessionId"] = json!("5e55a000-0000-4000-8000-000000000001");
    let to = dir.join(project.file_name().unwrap()).join("chats");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::write(to.join("5e55a000-0000-4000-8000-000000000001.jsonl"), lines(&[v])).unwrap();
    dir
}

/// A Gemini CLI prompt's `inlineData` parts (pasted images, `@file`s read
/// in) and `fileData` parts were dropped, with no placeholder: an image is
/// shown (its file under `assets/img/`), anything else is a placeholder
/// naming its type and size, a file by URI names it; the data never goes
/// into a page as text and markup in them stays text. Qwen Code's parts
/// are the same.
#[test]
fn attached_data_of_a_gemini_or_qwen_prompt_is_shown_or_named() {
    let root = tempfile::tempdir().unwrap();
    let g = gemini(
        root.path(),
        &[
            json!({"sessionId":"d530d928-9820-4b7a-9967-6c5d7bfe95e6","projectHash":"h","startTime":"2026-11-27T01:56:00Z","kind":"main"}),
            json!({"id":"m1","type":"user","timestamp":"2026-11-27T01:56:01Z","content":attached_parts("gemini")}),
            json!({"id":"m2","type":"gemini","timestamp":"2026-11-27T01:56:02Z","content":"seen","model":"gemini"}),
        ],
    );
    let q = qwen(root.path(), &attached_parts("qwen"));
    for (name, input, tag) in [("gemini", &g, "gemini: look at these"), ("qwen", &q, "qwen: look at these")] {
        let site = root.path().join(format!("site-{name}"));
        let o = cctree().arg("render").arg(input).arg("-o").arg(&site).arg("-q").output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let text = all_text(&site);
        assert!(text.contains(tag), "{name}: the prompt's text");
        let images: Vec<_> = walkdir::WalkDir::new(site.join("assets/img"))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .collect();
        assert_eq!(images.len(), 1, "{name}: the PNG, written once");
        let png = images[0].file_name().to_string_lossy().into_owned();
        assert!(text.contains(&png), "{name}: the page shows the image");
        assert!(text.contains("document: application/pdf, 9 bytes"), "{name}: the PDF named, with its size");
        assert!(text.contains("document: application/pdf gs://bucket/report.pdf"), "{name}: the file by URI");
        assert!(text.contains("image not shown"), "{name}: the bad image is a placeholder");
        assert!(!text.contains(PDF) && !text.contains(&PNG[..40]), "{name}: no data as text");
        let pages: String = walkdir::WalkDir::new(&site)
            .into_iter()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "html" || x == "js"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        assert!(!pages.contains("<script>alert"), "{name}: markup stays text");
        // The Markdown export names them too.
        let session = walkdir::WalkDir::new(input)
            .into_iter()
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .unwrap()
            .into_path();
        let md = root.path().join(format!("{name}.md"));
        let o = cctree().arg("export").arg(&session).arg("-o").arg(&md).arg("-q").output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let md = std::fs::read_to_string(md).unwrap();
        assert!(md.contains("an image") && md.contains("application/pdf, 9 bytes"), "{name}: {md}");
        assert!(!md.contains(PDF), "{name}");
    }
}

/// A Gemini CLI `.json` session holding a second JSON document after the
/// first lost it silently. Gemini CLI reads the file with `JSON.parse`,
/// which refuses it: the first document is read, the second is a counted
/// warning at its file:line saying what to do.
#[test]
fn a_second_document_in_a_gemini_json_session_is_a_warning_at_its_line() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("gemini/tmp/work");
    std::fs::create_dir_all(dir.join("chats")).unwrap();
    std::fs::write(dir.join(".project_root"), "/tmp/w").unwrap();
    let doc = |id: &str, text: &str| {
        serde_json::to_string_pretty(&json!({"sessionId":id,"startTime":"2026-11-27T01:00:00Z",
            "messages":[{"id":format!("{id}-m"),"type":"user","timestamp":"2026-11-27T01:00:01Z","content":text}]}))
        .unwrap()
    };
    let first = doc("d530d928-0000-4b7a-9967-6c5d7bfe95e6", "the first document's prompt");
    let text = format!("{first}\n{}\n", doc("d530d928-1111-4b7a-9967-6c5d7bfe95e6", "the second document's prompt"));
    let name = "session-2026-11-27T01-00-d530d928.json";
    std::fs::write(dir.join("chats").join(name), &text).unwrap();
    let site = root.path().join("site");
    let o = cctree().arg("render").arg(root.path().join("gemini/tmp")).arg("-o").arg(&site).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let line = first.lines().count() + 1;
    assert!(err.contains(&format!("{name}:{line}")) && err.contains("more JSON follows"), "{err}");
    assert!(err.contains("1 warning"), "counted: {err}");
    assert!(all_text(&site).contains("the first document's prompt"));
}
