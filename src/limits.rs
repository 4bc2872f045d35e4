//! Every cap and threshold of cctree, in one table. Each bounds what one
//! page, one report or one walk costs, so that a hostile or merely huge
//! archive renders in bounded time and memory; none drops content silently
//! (what is cut says so, with a way to see the rest where there is one).
//! Sizes are bytes unless the name says `CHARS` (Unicode scalar values).
//!
//! | constant | value | bounds | used in |
//! |---|---|---|---|
//! | **Pages** | | | |
//! | [`PAGE_SIZE`] | 50 | counted turns per branch or agent page (`--page-size` default) | `cli`, `render::site::layout` |
//! | [`MAX_SEGMENT`] | 80 | a slug or URL path segment | `render::site::urls` |
//! | [`PAGE_TEXT`] | 3 MB | text (outputs, Markdown, files) one page shows at full caps | `render::views::page_state` |
//! | [`PAGE_NODES`] | 4,096 | entries a page keeps read at once (two generations of up to this many; an older one is read again when needed) | `render::views::page_state` |
//! | [`SMALL_CAP`] | 16 KB | a block once the page's text allowance is spent | `render::views::page_state` |
//! | [`OUTPUT_CAP`] | 256 KB | one tool output or file view (the rest noted) | `render::views::page_state`, `render::views::tools` |
//! | [`OUTPUT_FOLD`] | 20,000 | an output longer than this is folded into a `<details>` | `render::views::page_state` |
//! | [`META_CAP`] | 64 KB | hidden metadata (collapsed raw JSON) per page | `render::views::page_state` |
//! | [`META_VIEW_MIN`] | 1 KB | smallest raw-JSON view worth showing; less left → a note | `render::views::page_state` |
//! | [`MARKDOWN_CAP`] | 512 KB | text rendered as Markdown (the rest dropped with a note) | `render::html::markdown` |
//! | [`COMMAND_CAP`] | 64 KB | a shell command shown in a tool call | `render::views::tools` |
//! | [`RESULT_BADGE_SIZE`] | 2,000 | a tool result longer than this shows its size in its call's header | `render::views::tools` |
//! | [`IMAGE_CAP`] | 16 MB | a decoded image (larger: a placeholder) | `render::site::images` |
//! | [`DIFF_LINES`] | 6,000 | changed lines diffed line by line (more: shown whole) | `render::html::diff` |
//! | [`DIFF_LINE_TOKENS`] | 500 | words of a line compared word by word in a diff | `render::html::diff` |
//! | [`DIFF_WORDS`] | 50,000 | words compared word by word in one diff | `render::html::diff` |
//! | [`LISTED_PER_PAGE`] | 200 | rows of each list (conversations, sub-agent transcripts, other entries) on a page of a project index | `render::pages::project_index` |
//! | [`UNKNOWN_ENTRIES`] | 200 | entries of unknown types listed on a project page | `render::pages::project_index` |
//! | [`OUTLINE_DEPTH`] | 8 | indentation levels of the fork-point index | `render::pages::outline` |
//! | [`FORK_CONTEXT`] | 3 | messages before a fork shown atop a branch page | `render::pages::track` |
//! | [`FORK_LISTED`] | 100 | branches of one fork listed in the fork-point index and its landmark (all of them on the fork's own pages) | `render::pages::outline`, `render::views::message` |
//! | [`FORK_PER_PAGE`] | 1,000 | branches per page of a fork's own list (`f/<fork>/`) | `render::pages::fork_list` |
//! | [`GROUP_FORK_MIN`] | 1,000 | branches at one fork from which its short branches share pages | `render::site::context` |
//! | [`GROUP_BUCKETS`] | 4,096 | shared pages of one such fork (a branch's from its uuid) | `render::site::context` |
//! | [`MD_TOOL_INPUT`] | 4 KB | a tool call's input in a Markdown export | `render::export::md` |
//! | [`MD_TOOL_RESULT`] | 8 KB | a tool result in a Markdown export | `render::export::md` |
//! | **Highlighting** (syntect runs near 1 MB/s per core) | | | |
//! | [`HIGHLIGHT_BLOCK`] | 16 KB | a code block of prose that is highlighted; a file read coloured in the browser | `render::html::highlight` |
//! | [`HIGHLIGHT_PAGE`] | 8 KB | highlighted source per page | `render::html::highlight` |
//! | [`HIGHLIGHT_LINE`] | 16 KB | a block with a longer line is shown plain | `render::html::highlight` |
//! | [`HIGHLIGHT_CACHE`] | 64 MB | HTML of highlighted snippets kept to be served again | `render::html::highlight` |
//! | **Excerpts** (characters) | | | |
//! | [`EXCERPT_CHARS`] | 240 | the text an entry keeps for titles and excerpts | `parse` |
//! | [`CRUMB_CHARS`] | 60 | a breadcrumb | `render::pages::track` |
//! | [`TITLE_CHARS`] | 120 | a page's title and heading | `render::pages::track` |
//! | [`COMPARE_BRANCHES`] | 6 | branches side by side on a fork's compare page | `render::pages::compare` |
//! | [`COMPARE_MESSAGES`] | 400 | messages of a branch on a compare page | `render::pages::compare` |
//! | [`COMPARE_TEXT_CHARS`] | 4,000 | characters of a message on a compare page | `render::pages::compare` |
//! | [`LISTED_TITLE_CHARS`] | 200 | a conversation title on the project page | `render::pages::project_index` |
//! | [`UNTITLED_CHARS`] | 72 | the heading and listed title of a conversation titled by its first prompt, a branch's heading | `render::pages` |
//! | [`OUTLINE_CHARS`] | 140 | a line of the fork-point index | `render::pages::outline` |
//! | [`OUTLINE_FIRST_CHARS`] | 160 | the first prompt, atop the fork-point index | `render::pages::outline` |
//! | [`OUTLINE_LABEL_CHARS`] | 120 | a fork child's first words in the fork-point index | `render::pages::outline` |
//! | [`CALLER_CHARS`] | 60 | a sub-agent's description in the line naming who called it | `render::views::message` |
//! | [`THINKING_SUMMARY_CHARS`] | 80 | the summary of a collapsed thinking block | `render::views::message` |
//! | [`AUX_SUMMARY_CHARS`] | 100 | the summary of a collapsed side entry | `render::views::message` |
//! | [`AUX_LINE_CHARS`] | 300 | a side entry shown on one line | `render::views::message` |
//! | [`TOOL_ARG_CHARS`] | 120 | a tool call's argument in its header | `render::views::tools` |
//! | [`RAW_SUMMARY_FIELDS`] | 3 | fields named in the one-line summary of a tool input without a type | `model::raw` |
//! | [`TOOL_NOTE_CHARS`] | 200 | the line of a result text whose call shows its effect (longer: the whole text under it) | `render::views::tools` |
//! | [`HINT_CHARS`] | 400 | a tool call's description | `render::views::tools` |
//! | [`SEARCH_TITLE_CHARS`] | 200 | a conversation's title in the search index | `render::search` |
//! | **Search index** | | | |
//! | [`SEARCH_TERM_CHARS`] | 24 | a term (longer runs are indexed by their start) | `render::search::terms` |
//! | [`SEARCH_DOC_CHARS`] | 1,200 | the excerpt kept of one message (characters) | `render::search::docs` |
//! | [`SEARCH_TEXT_CHARS`] | 1,048,576 | the whole text kept of one message whose excerpt was cut, for the words around a match | `render::search::docs` |
//! | [`SEARCH_PROSE_CHARS`] | 600 | … of one piece of prose (a prompt, a reply) | `render::search::docs` |
//! | [`SEARCH_THINKING_CHARS`] | 240 | … of one thinking block | `render::search::docs` |
//! | [`SEARCH_CALL_CHARS`] | 160 | … of one piece of a tool call (name, argument, command) | `render::search::docs` |
//! | [`SEARCH_OUTPUT_CHARS`] | 240 | … of one output, file or diff | `render::search::docs` |
//! | [`SEARCH_SHARD`] | 32 KB | the average shard of the term dictionary | `render::search::index` |
//! | [`SEARCH_SHARD_MAX`] | 128 KB | a shard of several terms | `render::search::index` |
//! | [`SEARCH_UNIT_CHUNK`] | 256 | units per file of the unit table | `render::search::index` |
//! | [`MEDIA_TYPE_CHARS`] | 40 | an unsupported image type quoted in a warning | `render::site::images` |
//! | [`FORK_TITLE_CHARS`] | 60 | the source's title in a fork's default title | `fork::plan` |
//! | [`FORK_TITLE_ID_CHARS`] | 8 | the checkpoint uuid in a fork's default title | `fork::plan` |
//! | **Terminal reports** | | | |
//! | [`REDACTION_REPORT_LINES`] | 20 | places listed by `render --redact` (the rest counted) | `run` |
//! | [`DRIFT_SHOWN`] | 10 | drifting entries listed by `fork` | `fork::cmd` |
//! | [`SYNC_LISTED`] | 10 | errors and files listed by `sync` | `sync::report` |
//! | [`LIKE_WARNINGS`] | 10 | warnings of one kind about one file listed (the rest in one warning that counts them) | `warnings` |
//! | [`PROGRESS_TICK`] | 100 ms | the progress bar's spinner turns (also while one project takes long) | `driver` |
//! | [`REPORT_TITLE_CHARS`] | 80 | a conversation's title in a terminal line (`export`'s report, the conversations a target names) | `run`, `export` |
//! | [`ID_PREFIX_MIN`] | 4 | characters of the shortest id prefix taken for an id (`--at`, `--conversation`, `export`) | `select`, `fork::target` |
//! | [`OPEN_WAIT`] | 1.5 s | how long `--open` waits for the browser command to fail before it takes it to have opened the page | `browser` |
//! | **Work** | | | |
//! | [`THREADS_PER_CORE`] | 4 | worker threads per core (`-j` is capped) | `run` |
//! | [`PARSE_PIECE`] | 8 MB | a file larger is parsed in pieces of about this size, in parallel | `parse` |
//! | [`JSON_DEPTH`] | 127 | levels of arrays and objects of a line read as a tree (deeper: kept as its JSON text) | `json` |
//! | **Serve** (`cctree serve`) | | | |
//! | [`SERVE_PORT`] | 8417 | the default port (the next [`SERVE_PORT_TRIES`] when it is taken) | `serve` |
//! | [`SERVE_CONNECTIONS`] | 64 | connections served at once (more wait to be accepted) | `serve::http` |
//! | [`SERVE_WAITERS`] | 32 | pages waiting for a change at once (more are told to ask again later) | `serve::http` |
//! | [`SERVE_WAIT`] | 25 s | how long a page's request for news is held when nothing changes | `serve::http` |
//! | [`SERVE_HEADER_TIMEOUT`] | 10 s | to send a request's headers | `serve::http` |
//! | [`SERVE_HEADER_BYTES`] | 16 KB | a request's headers | `serve::http` |
//! | [`SERVE_CONNECTION_LIFE`] | 10 min | one connection (then closed; the browser opens another) | `serve::http` |
//! | [`SERVE_PAGE_READ`] | 32 MB | a page read whole to add the live-reload script (larger: served as it is) | `serve::http` |
//! | [`SERVE_PAGE_READS`] | 4 | pages read whole at once (memory: this × [`SERVE_PAGE_READ`]) | `serve::http` |
//! | [`SERVE_CHUNK`] | 64 KB | other files are sent in pieces of this size | `serve::http` |
//! | [`SERVE_SETTLE`] | 200 ms | quiet after a change to the input before rendering again… | `serve::watch` |
//! | [`SERVE_SETTLE_MAX`] | 1 s | …but no longer than this after the first change (a session written without pause) | `serve::watch` |
//! | **Memory** (transcript bytes; see `texts`) | | | |
//! | [`HOLD_MAX`] | 16 MB | the largest file kept in memory whole (larger: read in windows, lines read again from disk) | `texts` |
//! | [`HOLD_BUDGET`] | 256 MB | bytes of files one project keeps in memory | `texts` |
//! | [`READ_WINDOW`] | 32 MB | a file not kept is read and parsed in windows of about this size | `texts` |
//! | [`OPEN_FILES`] | 128 | files of a project kept open to read lines again (others are opened again) | `texts` |
//! | [`SQLITE_ATTEMPTS`] | 5 | reads of a client's database that changed under them before it is an error | `sqlite` |
//! | [`SQLITE_BUSY_MS`] | 5,000 ms | a read of a client's database waits this long for a lock (the client never waits for it) | `sqlite` |
//! | [`TURN_LOOKAHEAD`] | 64 | nodes looked at below a checkpoint for the rest of its turn | `fork::prefix` |
//! | [`LABEL_LOOKAHEAD`] | 64 | nodes looked at along a fork child's line for its label | `graph::titles` |
//! | [`COMPACTION_LOOKBACK`] | 64 | earlier nodes of a session tried to join a compaction by time | `graph::link` |
//! | [`KEPT_WALK_BUDGET`] | 4 | steps per node of a project for walking the messages compactions kept when they come without a list | `graph::link` |
//! | [`START_DIR_LINES`] | 64 | lines of a session file read for the directory it started in (`--project`; a Codex rollout from before the envelope, for its project) | `select`, `agent::codex::discover` |
//! | [`START_DIR_BYTES`] | 4 MB | bytes of a session file read for the same | `select` |
//! | [`MARK_PROBE`] | 4 KB | the first bytes of an existing file searched for cctree's mark before it is written over | `build::file` |
//! | [`FIRST_LINE_CAP`] | 4 MB | bytes of a Codex rollout's first line (`session_meta`) read to group it by project (before the envelope: of its first lines) | `discover` |
//! | **Recovered sessions** (the prompt history; transcript-format "The prompt history") | | | |
//! | [`RECOVERED_GAP`] | 1 h | history lines without a session id further apart than this start another session | `recover` |
//! | [`RECOVERED_MATCH`] | 10 min | a history line and a surviving prompt of the same text this close in time are one prompt | `recover` |

/// Counted turns per branch or agent page (the default of `--page-size`).
pub const PAGE_SIZE: u32 = 50;
/// Longest slug or URL path segment.
pub const MAX_SEGMENT: usize = 80;
/// Text (outputs, Markdown, files) one page shows at full caps; past it each
/// further block is cut to [`SMALL_CAP`], so no page grows past a few MB.
pub const PAGE_TEXT: usize = 3 * 1024 * 1024;
/// Entries a page keeps read ([`crate::model::Node`]s) in each of its two
/// generations: once the newest holds this many, the one before is dropped
/// (an entry of it asked for again is read again, to the same node), so a
/// page of a reply of 128,000 parallel calls holds a few thousand nodes at
/// once, not every entry it has read (peak RSS 915 → 680–700 MB there).
pub const PAGE_NODES: usize = 4096;
/// The cap of a block once a page's [`PAGE_TEXT`] is spent.
pub const SMALL_CAP: usize = 16 * 1024;
/// Outputs are cut at this size, with a note.
pub const OUTPUT_CAP: usize = 256 * 1024;
/// Outputs longer than this are folded into a `<details>` with their size.
pub const OUTPUT_FOLD: usize = 20_000;
/// Hidden metadata (collapsed raw JSON of entries) one page carries at most:
/// 2.1.330 writes ~60 KB system-prompt snapshots and ~40 KB request shapes.
pub const META_CAP: usize = 64 * 1024;
/// The smallest raw-JSON view worth showing: with less of [`META_CAP`] left,
/// a note with the size instead.
pub const META_VIEW_MIN: usize = 1024;
/// Longest text rendered as Markdown; the rest is dropped with a note.
pub const MARKDOWN_CAP: usize = 512 * 1024;
/// Longest shell command shown in a tool call.
pub const COMMAND_CAP: usize = 64 * 1024;
/// A tool result longer than this shows its size in its call's header.
pub const RESULT_BADGE_SIZE: usize = 2000;
/// Largest decoded image written (bigger ones become a placeholder).
pub const IMAGE_CAP: usize = 16 * 1024 * 1024;
/// Most lines, old and new together, between the common start and end of
/// two texts that are diffed line by line (worst case ~0.3 s on this kind
/// of machine; edits are usually a few dozen lines).
pub const DIFF_LINES: usize = 6_000;
/// Words (runs of letters or spaces, other characters alone) of the longest
/// line an edit's diff compares word by word with its counterpart.
pub const DIFF_LINE_TOKENS: usize = 500;
/// Words one diff compares word by word, all its lines together (past
/// them, changed lines are shown without word marks).
pub const DIFF_WORDS: usize = 50_000;
/// Entries of unknown types listed on a project page (the rest counted).
pub const UNKNOWN_ENTRIES: usize = 200;
/// Rows of each list on one page of a project index (conversations,
/// sub-agent transcripts, other entries): the index of a project of 200,000
/// sessions is 1,000 pages of a fixed size, not one page of 72 MB.
pub const LISTED_PER_PAGE: usize = 200;
/// Deepest indentation class of the fork-point index (the stylesheet's).
pub const OUTLINE_DEPTH: u32 = 8;
/// Longest branch label a fork's name is qualified by (`#14 on 8.1`) before
/// the fork falls back to a letter (`#14b`): labels stay short however deep
/// the branches nest.
pub const FORK_QUALIFIER_CHARS: usize = 24;
/// Messages before a fork point shown atop a branch's first page (back to
/// the last prompt at most, plus that prompt).
pub const FORK_CONTEXT: usize = 3;
/// Branches of one fork point named in the fork-point index and in the
/// fork's landmark (the continuing one, the active one and the first
/// others); a fork with more links to its own list of every branch, in
/// pages of [`FORK_PER_PAGE`]. A million rewinds of one message are then
/// a fork-point index of a hundred rows, not 439 MB.
pub const FORK_LISTED: usize = 100;
/// Branches per page of a fork's own list.
pub const FORK_PER_PAGE: usize = 1000;
/// A fork point with this many branches or more puts each of its short
/// branches (one page, no fork of its own) on one of [`GROUP_BUCKETS`]
/// shared pages, chosen by a hash of the branch's first uuid: a million
/// one-prompt branches are 4,096 pages, not a million. Below it (every
/// ordinary archive) each branch has its own page.
pub const GROUP_FORK_MIN: usize = 1000;
/// Shared pages of such a fork (a power of 16: the page is named by the
/// first hex digits of the hash).
pub const GROUP_BUCKETS: usize = 4096;

/// A tool call's input in a Markdown export (`cctree export --format md`):
/// the rest is noted as cut (the HTML export shows it).
pub const MD_TOOL_INPUT: usize = 4 * 1024;

/// A tool result in a Markdown export: the rest is noted as cut.
pub const MD_TOOL_RESULT: usize = 8 * 1024;

/// Largest code block of prose (a fenced block in a prompt or reply) that is
/// highlighted, and largest file read that the browser colours when it is
/// opened; larger ones are shown plain.
pub const HIGHLIGHT_BLOCK: usize = 16 * 1024;
/// Highlighted source per page; beyond it blocks are shown plain (classed
/// HTML is ~9× its source, so this also keeps pages light).
pub const HIGHLIGHT_PAGE: usize = 8 * 1024;
/// A block with a longer line is shown plain (minified files, data dumps).
pub const HIGHLIGHT_LINE: usize = 16 * 1024;
/// HTML of highlighted snippets kept to be served again (each distinct
/// snippet is highlighted once per process while this lasts).
pub const HIGHLIGHT_CACHE: usize = 64 * 1024 * 1024;

/// How many characters of text an entry keeps as its excerpt.
pub const EXCERPT_CHARS: usize = 240;
/// A breadcrumb's label.
pub const CRUMB_CHARS: usize = 60;
/// A page's title and heading.
pub const TITLE_CHARS: usize = 120;
/// Branches of a fork side by side on its compare page (the others are on
/// their own pages, named by the fork's landmark and list).
pub const COMPARE_BRANCHES: usize = 6;
/// Messages of a branch on a compare page.
pub const COMPARE_MESSAGES: usize = 400;
/// Characters of a message on a compare page (the whole is on its branch's page).
pub const COMPARE_TEXT_CHARS: usize = 4_000;
/// A conversation's title on the project page.
pub const LISTED_TITLE_CHARS: usize = 200;
/// The heading and listed title of a conversation with no title but its
/// first prompt (its words, without Markdown marks), and a branch page's
/// heading: four lines at most on a phone.
pub const UNTITLED_CHARS: usize = 72;
/// A line of the fork-point index.
pub const OUTLINE_CHARS: usize = 140;
/// The first prompt, the first line of the fork-point index.
pub const OUTLINE_FIRST_CHARS: usize = 160;
/// A fork child's first words (its label) in the fork-point index.
pub const OUTLINE_LABEL_CHARS: usize = 120;
/// A sub-agent's description in the line naming who called it (`Claude → type (…)`).
pub const CALLER_CHARS: usize = 60;
/// The summary of a collapsed thinking block.
pub const THINKING_SUMMARY_CHARS: usize = 80;
/// The summary of a collapsed side entry's body.
pub const AUX_SUMMARY_CHARS: usize = 100;
/// A side entry shown on one line.
pub const AUX_LINE_CHARS: usize = 300;
/// A tool call's argument in its header.
pub const TOOL_ARG_CHARS: usize = 120;
/// Fields of an untyped tool input its one-line summary names (`model::Raw::key_fields`).
pub const RAW_SUMMARY_FIELDS: usize = 3;
/// The line of a result text whose call shows its effect (Edit, Write…); longer: the whole text under it.
pub const TOOL_NOTE_CHARS: usize = 200;
/// A tool call's description.
pub const HINT_CHARS: usize = 400;
/// A conversation's title in the search index.
pub const SEARCH_TITLE_CHARS: usize = 200;
/// Longest term of the search index, in characters: hashes, base64 and
/// other long runs are found by their start.
pub const SEARCH_TERM_CHARS: usize = 24;
/// The excerpt the search index keeps of one message (characters): what a
/// result can show around a hit. Every word is indexed; the excerpt keeps the
/// start of each piece of text, within the caps below, so that the index
/// stays a fraction of the text (docs/performance.md).
pub const SEARCH_DOC_CHARS: usize = 1200;
/// The whole text the search index keeps of one message whose excerpt was
/// cut (characters), beside the excerpt: a result for a word past the
/// excerpt shows the words around it from this text.
pub const SEARCH_TEXT_CHARS: usize = 1 << 20;
/// The excerpt kept of one piece of prose (a prompt, a reply, a summary).
pub const SEARCH_PROSE_CHARS: usize = 600;
/// The excerpt kept of one thinking block.
pub const SEARCH_THINKING_CHARS: usize = 240;
/// The excerpt kept of one piece of a tool call (its name, argument, command).
pub const SEARCH_CALL_CHARS: usize = 160;
/// The excerpt kept of one output, file, diff or raw JSON.
pub const SEARCH_OUTPUT_CHARS: usize = 240;
/// The average size of a shard of the term dictionary (bytes before base64):
/// a word's search loads one.
pub const SEARCH_SHARD: usize = 32 * 1024;
/// A shard of several terms ends past this size (a term's own list may be larger).
pub const SEARCH_SHARD_MAX: usize = 128 * 1024;
/// Units (conversations) per file of the search index's unit table.
pub const SEARCH_UNIT_CHUNK: usize = 256;
/// An unsupported image media type quoted in a warning.
pub const MEDIA_TYPE_CHARS: usize = 40;
/// The source's title in a fork's default title.
pub const FORK_TITLE_CHARS: usize = 60;
/// The checkpoint uuid's first characters in a fork's default title.
pub const FORK_TITLE_ID_CHARS: usize = 8;

/// Places `cctree render --redact` lists on stderr before the rest is only counted.
pub const REDACTION_REPORT_LINES: usize = 20;
/// Warnings of one kind about one file listed one by one (see the table).
pub const LIKE_WARNINGS: usize = 10;
/// How long `--open` waits for its command to fail (see the table).
pub const OPEN_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);
/// A conversation's title in a line printed on the terminal (`cctree
/// export`'s report, the conversations an ambiguous target names).
pub const REPORT_TITLE_CHARS: usize = 80;
/// Drifting entries `cctree fork` lists (the rest counted).
pub const DRIFT_SHOWN: usize = 10;
/// Errors, and paths per kind of change, `cctree sync` lists before "… and N more".
pub const SYNC_LISTED: usize = 10;
/// How often the progress bar's spinner turns on its own: a project that
/// takes minutes shows it is still at work.
pub const PROGRESS_TICK: std::time::Duration = std::time::Duration::from_millis(100);
/// The shortest prefix of a uuid or session id taken for it (when it is the
/// only one that starts so): shorter ones name too many.
pub const ID_PREFIX_MIN: usize = 4;

/// `cctree serve`'s port when none is given…
pub const SERVE_PORT: u16 = 8417;
/// …and how many ports after it are tried when it is taken.
pub const SERVE_PORT_TRIES: u16 = 10;
/// Connections `cctree serve` serves at once; more wait in the listen queue.
pub const SERVE_CONNECTIONS: usize = 64;
/// Pages waiting for a change at once; more are answered at once and ask again later.
pub const SERVE_WAITERS: usize = 32;
/// How long a page's request for news is held when nothing changes.
pub const SERVE_WAIT: std::time::Duration = std::time::Duration::from_secs(25);
/// Time to send a request's headers (then the connection is closed).
pub const SERVE_HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// A request's headers, at most (the connection's read buffer).
pub const SERVE_HEADER_BYTES: usize = 16 << 10;
/// One connection's life: then it is closed (the browser opens another).
pub const SERVE_CONNECTION_LIFE: std::time::Duration = std::time::Duration::from_secs(600);
/// A page read whole to add the live-reload script; a larger one is served as it is.
pub const SERVE_PAGE_READ: u64 = 32 << 20;
/// Pages read whole at once.
pub const SERVE_PAGE_READS: usize = 4;
/// Other files are sent in pieces of this size.
pub const SERVE_CHUNK: usize = 64 << 10;
/// Quiet after a change to the input before rendering again…
pub const SERVE_SETTLE: std::time::Duration = std::time::Duration::from_millis(200);
/// …but no longer than this after the first change.
pub const SERVE_SETTLE_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// Worker threads per core at most: more only add overhead, and thousands of
/// threads take minutes to start and to stop (`-j 10000` took 4 minutes).
pub const THREADS_PER_CORE: usize = 4;
/// Files larger than this are cut into pieces of about this size, at line
/// ends, and the pieces parsed in parallel.
pub const PARSE_PIECE: usize = 8 << 20;
/// Levels of arrays and objects a line read as a tree keeps; a container
/// nested deeper is kept as a string of its JSON text. The deepest nesting
/// serde_json reads (its recursion limit), so what it read is read as before.
pub const JSON_DEPTH: usize = 127;
/// The largest transcript file kept in memory whole while its project is loaded.
pub const HOLD_MAX: u64 = 16 << 20;
/// The most bytes of transcript files one project keeps in memory.
pub const HOLD_BUDGET: u64 = 256 << 20;
/// A file not kept in memory is read in windows of about this size (a line
/// longer than a window is read whole).
pub const READ_WINDOW: usize = 32 << 20;
/// The most files of a project kept open to read their lines again.
pub const OPEN_FILES: usize = 128;
/// Reads of a client's database that changed while read (a copy or an
/// immutable read) before giving up.
pub const SQLITE_ATTEMPTS: usize = 5;
/// How long a read of a client's database waits for a lock it needs (the
/// client never waits for the reader).
pub const SQLITE_BUSY_MS: u64 = 5_000;
/// How far below a checkpoint the rest of its assistant turn is looked for
/// (nodes visited). Streamed blocks of one response sit a few nodes apart;
/// 64 is far more than the corpus needs.
pub const TURN_LOOKAHEAD: usize = 64;
/// How far a fork child's label is looked for along its line (nodes).
pub const LABEL_LOOKAHEAD: usize = 64;
/// How many earlier nodes of its session a compaction without its logical
/// parent tries, latest first, to join by time (one not below it).
pub const COMPACTION_LOOKBACK: usize = 64;
/// Steps, per node of the project, that walking kept segments (a
/// compaction's `preservedSegment` without its list: from the tail up to the
/// head) may take in all: each walk is as long as its segment, so the total
/// stays linear even when every compaction names the whole conversation.
pub const KEPT_WALK_BUDGET: usize = 4;
/// Lines of a session file `--project` reads, at most, for the working
/// directory the session started in (its first line with a `cwd`: after a
/// few metadata lines at most).
pub const START_DIR_LINES: usize = 64;
/// Bytes of a session file read for the same, at most.
pub const START_DIR_BYTES: u64 = 4 << 20;
/// The first bytes of an existing file searched for cctree's mark (`build::file`:
/// only a file cctree wrote is written over).
pub const MARK_PROBE: u64 = 4096;
/// Bytes of a Codex rollout's first line (`session_meta`, which carries the
/// base instructions) `discover` reads, at most, for its working directory.
pub const FIRST_LINE_CAP: usize = 4 << 20;

/// The map of a conversation (render/map.rs): at most this many rows…
pub const MAP_ROWS: usize = 600;
/// …this many branches drawn per fork (the rest are in the fork-point index)…
pub const MAP_FANOUT: usize = 24;
/// …lanes of nesting (deeper branches share the last one)…
pub const MAP_LANES: u32 = 8;
/// …prompts in a row of the line collapsed into one row from this many on…
pub const MAP_RUN: u32 = 3;
/// …and characters of the first words shown on a row.
pub const MAP_CHARS: usize = 64;
/// A conversation without forks has a map when it has more rows than this.
pub const MAP_MIN_ROWS: usize = 4;

/// History lines without a session id (older clients) more than this far
/// apart in time are taken for two sessions (`recover`).
pub const RECOVERED_GAP: std::time::Duration = std::time::Duration::from_secs(3600);
/// A history line is the same prompt as a surviving transcript's prompt of
/// the same text typed within this time of it (`recover`).
pub const RECOVERED_MATCH: std::time::Duration = std::time::Duration::from_secs(600);
