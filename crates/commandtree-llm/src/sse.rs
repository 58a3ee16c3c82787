//! Server-sent events, read line by line from a response body.

use std::io::BufRead;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event:` field (Anthropic names every event; OpenAI sends none).
    pub name: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Calls `on_event` for each event until the stream ends or `on_event` returns false.
pub(crate) fn read_events(
    reader: &mut impl BufRead,
    mut on_event: impl FnMut(Event) -> Result<bool, crate::LlmError>,
) -> Result<(), ReadError> {
    let mut ev = Event::default();
    let mut has_data = false;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(ReadError::Io)?;
        let eof = n == 0;
        let l = line.trim_end_matches(['\n', '\r']);
        if eof || l.is_empty() {
            if has_data || !ev.name.is_empty() {
                let done = std::mem::take(&mut ev);
                has_data = false;
                if !on_event(done).map_err(ReadError::Llm)? {
                    return Ok(());
                }
            }
            if eof {
                return Ok(());
            }
            continue;
        }
        if l.starts_with(':') {
            continue;
        }
        let (field, value) = match l.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (l, ""),
        };
        match field {
            "event" => ev.name = value.to_string(),
            "data" => {
                if has_data {
                    ev.data.push('\n');
                }
                ev.data.push_str(value);
                has_data = true;
            }
            _ => {}
        }
    }
}

#[derive(Debug)]
pub(crate) enum ReadError {
    Io(std::io::Error),
    Llm(crate::LlmError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fields_comments_and_eof() {
        let text = ": ping\nevent: a\ndata: {\"x\":\ndata: 1}\n\ndata: [DONE]\r\n\r\ndata: last";
        let mut got = Vec::new();
        read_events(&mut text.as_bytes(), |e| {
            got.push(e);
            Ok(true)
        })
        .unwrap();
        assert_eq!(
            got,
            vec![
                Event {
                    name: "a".into(),
                    data: "{\"x\":\n1}".into()
                },
                Event {
                    name: String::new(),
                    data: "[DONE]".into()
                },
                Event {
                    name: String::new(),
                    data: "last".into()
                },
            ]
        );
    }
}
