//! One message as typed views: a display item → a [`message::MessageView`]
//! (`templates/_message.html`) whose body is [`blocks::Block`]s
//! (`templates/blocks/`), tool calls with their results as
//! [`blocks::ToolView`]s (`templates/tools/`), each built from the transcript
//! model, with the page's state and allowances ([`page_state::PageCtx`]) and
//! the `<time>` every view writes ([`time::Time`]).

pub(crate) mod blocks;
pub(crate) mod inputs;
pub(crate) mod message;
pub(crate) mod page_state;
pub(crate) mod time;
pub(crate) mod tools;
