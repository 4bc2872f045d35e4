//! A prompt's text as the person typed it, apart from the context the IDE
//! (or the client) attached to it in tags (transcript-format §4.2): used for
//! the first words of a prompt (titles, listings, fork labels) and by the
//! pages, which show that context as a quiet quote.

/// Tags of context the IDE (or the client) attaches to a prompt, with the
/// label a page gives them: the tags Claude Code itself strips from a
/// prompt's text (`ide_selection`, `ide_opened_file`, `terminal`, `browser`)
/// and IDE diagnostics.
const IDE_TAGS: &[(&str, &str)] = &[
    ("ide_selection", "selection"),
    ("ide_opened_file", "opened file"),
    ("ide_diagnostics", "diagnostics"),
    ("new-diagnostics", "diagnostics"),
    ("terminal", "terminal"),
    ("browser", "browser"),
];

/// A piece of a prompt's text: what was typed, or context the IDE attached.
#[derive(Debug, PartialEq, Eq)]
pub enum PromptPart<'s> {
    Typed(&'s str),
    /// Its label, the `name` attribute if any, and its text.
    Ide {
        label: &'static str,
        name: Option<&'s str>,
        text: &'s str,
    },
}

/// Splits a prompt's text into typed text and IDE context tags
/// (`<tag>…</tag>` or `<tag name="…">…</tag>`, each closed; an unclosed tag
/// stays typed text, as the client's own pattern leaves it).
pub fn prompt_parts(s: &str) -> Vec<PromptPart<'_>> {
    let mut out = Vec::new();
    let mut typed = 0;
    let mut i = 0;
    while let Some(k) = s[i..].find('<') {
        let at = i + k;
        i = at + 1;
        let Some((tag, label)) = IDE_TAGS.iter().find(|(t, _)| {
            s[at + 1..].starts_with(t) && matches!(s.as_bytes().get(at + 1 + t.len()), Some(b'>' | b' '))
        }) else {
            continue;
        };
        let Some(open_end) = s[at..].find('>').map(|e| at + e + 1) else { continue };
        let close = format!("</{tag}>");
        let Some(body_end) = s[open_end..].find(&close).map(|e| open_end + e) else { continue };
        let attrs = &s[at + 1 + tag.len()..open_end - 1];
        let name = attrs.split_once("name=\"").and_then(|(_, r)| r.split_once('"')).map(|(n, _)| n);
        if !s[typed..at].trim().is_empty() {
            out.push(PromptPart::Typed(&s[typed..at]));
        }
        out.push(PromptPart::Ide { label, name, text: s[open_end..body_end].trim() });
        typed = body_end + close.len();
        i = typed;
    }
    if !s[typed..].trim().is_empty() || out.is_empty() {
        out.push(PromptPart::Typed(&s[typed..]));
    }
    out
}

/// The text a person typed in a prompt: its text without IDE context
/// tags, or all of it when it holds nothing else.
pub fn typed_text(s: &str) -> std::borrow::Cow<'_, str> {
    let parts = prompt_parts(s);
    let typed: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            PromptPart::Typed(t) => Some(*t),
            PromptPart::Ide { .. } => None,
        })
        .collect();
    match typed.as_slice() {
        [one] if one.len() == s.len() => std::borrow::Cow::Borrowed(s),
        [] => std::borrow::Cow::Borrowed(s),
        many => std::borrow::Cow::Owned(many.join(" ")),
    }
}

/// The text of an entry's excerpt as its words are read: a slash command
/// (`<command-name>`, `<command-args>` tags) as `/name args`, a shell-mode
/// input (`<bash-input>`) as `! cmd`, anything else as it is.
pub fn as_typed(text: &str) -> std::borrow::Cow<'_, str> {
    if let Some(name) = tag_text(text, "command-name") {
        let args = tag_text(text, "command-args").unwrap_or("");
        return std::borrow::Cow::Owned(format!("{name} {args}"));
    }
    if let Some(cmd) = tag_text(text, "bash-input") {
        return std::borrow::Cow::Owned(format!("! {cmd}"));
    }
    std::borrow::Cow::Borrowed(text)
}

/// The text between `<tag>` and `</tag>` (the first occurrence; to the end
/// when it is not closed).
pub fn tag_text<'s>(s: &'s str, tag: &str) -> Option<&'s str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = s.find(&open)? + open.len();
    let end = s[start..].find(&close).map_or(s.len(), |e| start + e);
    Some(&s[start..end])
}

/// Whether `s` is nothing but IDE context tags.
pub fn only_context(s: &str) -> bool {
    prompt_parts(s).iter().all(|p| matches!(p, PromptPart::Ide { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ide_context_is_split_from_what_was_typed() {
        use PromptPart::{Ide, Typed};
        let s = "<ide_opened_file>The user opened the file /a.rs in the IDE.</ide_opened_file>\nWhy <b>?";
        assert_eq!(
            prompt_parts(s),
            [
                Ide { label: "opened file", name: None, text: "The user opened the file /a.rs in the IDE." },
                Typed("\nWhy <b>?")
            ]
        );
        let t = "fix it <terminal name=\"zsh\">$ make\nerror</terminal> <ide_selection>x</ide_selection>";
        assert_eq!(
            prompt_parts(t),
            [
                Typed("fix it "),
                Ide { label: "terminal", name: Some("zsh"), text: "$ make\nerror" },
                Ide { label: "selection", name: None, text: "x" }
            ]
        );
        assert_eq!(prompt_parts("<ide_selection>never closed"), [Typed("<ide_selection>never closed")]);
        assert_eq!(prompt_parts("<ide_selectionx>a</ide_selectionx>"), [Typed("<ide_selectionx>a</ide_selectionx>")]);
        assert_eq!(prompt_parts(""), [Typed("")]);
    }

    #[test]
    fn tags_are_read_as_typed() {
        let s = "<command-name>/cost</command-name>\n<command-args>a b</command-args>";
        assert_eq!(tag_text(s, "command-name"), Some("/cost"));
        assert_eq!(tag_text(s, "command-args"), Some("a b"));
        assert_eq!(tag_text(s, "nope"), None);
        assert_eq!(tag_text("<x>open", "x"), Some("open"));
        assert_eq!(as_typed(s), "/cost a b");
        assert_eq!(as_typed("<bash-input>ls</bash-input>"), "! ls");
        assert_eq!(as_typed("plain"), "plain");
    }

    #[test]
    fn typed_text_leaves_the_ide_context_out() {
        let s = "<ide_opened_file>The user opened /a.rs</ide_opened_file>\nWhy does it fail?";
        assert_eq!(typed_text(s).trim(), "Why does it fail?");
        assert_eq!(typed_text("<ide_selection>only this</ide_selection>"), "<ide_selection>only this</ide_selection>");
        assert_eq!(typed_text("plain"), "plain");
        assert!(only_context("<ide_selection>a</ide_selection>\n<ide_opened_file>b</ide_opened_file>"));
        assert!(!only_context("<ide_selection>a</ide_selection> and more") && !only_context(""));
    }
}
