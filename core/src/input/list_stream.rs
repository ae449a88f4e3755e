//! A large `kind: List` read from a stream in parts, each part read on a worker thread while
//! the next is still arriving (natively; the wasm builds have neither files nor threads).
//!
//! [`super::list_parts`] cuts a whole text into parts; this does the same as the text comes,
//! so the text is never held whole: a 581 MiB `kubectl get nodes,pods -A -o yaml` is read
//! with a few parts in memory at a time, and its reading overlaps the parsing. The parts are
//! the same runs of whole items (cut before a `- ` line at column 0), read by the same
//! [`read_chunk`], numbered as in the whole List; the frame around the items (the List's
//! `apiVersion`, `kind` and `metadata`) is checked at the end as `list_parts` checks it.
//! Anything else gives `None` and the caller reads the whole text the usual way, which
//! reports errors exactly: like `list_parts`, this is a fast path only, and its result is the
//! usual reading's (`tests`).
//!
//! The core does no IO: the caller hands over a [`Read`] (the CLI, a file it opened).

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use super::block_yaml::Prune;
use super::documents::{flow_nesting_exceeds, Manifests, MAX_FLOW_DEPTH, MAX_INPUT_BYTES};
use super::list_parts::{frame_is_an_empty_list, items_end, join, read_chunk};

/// Smaller texts are read whole: threads cost more than they save below this.
pub const MIN_BYTES: usize = super::list_parts::MIN_BYTES;

/// Bytes read at a time, and about how much text one part holds: large enough that a part
/// costs far more to parse than to hand over, small enough that a few in flight stay small
/// beside the objects they become.
const PART_BYTES: usize = 8 << 20;

/// Where the items must have started by: a List's frame before them is a few lines.
const MAX_HEAD_BYTES: usize = 64 << 10;

/// Reads the List `reader` holds, in parts on worker threads, or `None` for the usual
/// reading (not a List as kubectl prints it, not UTF-8, an item that does not read, more
/// objects or bytes than the limits). An `Err` is the reader's own.
pub fn read(reader: impl Read, source: &str) -> std::io::Result<Option<Manifests>> {
    read_with(reader, source, PART_BYTES, super::list_parts::parts())
}

/// [`read`] with the part size and the number of workers given (tests use small parts).
pub(super) fn read_with(
    mut reader: impl Read,
    source: &str,
    part_bytes: usize,
    workers: usize,
) -> std::io::Result<Option<Manifests>> {
    let prune = Prune::UnreadFields;
    // Parts' buffers come back once read, and hold the next parts: a fresh 8 MiB buffer per
    // part made the kernel fault in and clear every page of it again (8% of a snapshot's
    // reading).
    let (spend, spent) = mpsc::channel::<Vec<u8>>();
    let mut input =
        Input { reader: &mut reader, buffer: Vec::with_capacity(part_bytes * 2), eof: false, total: 0, spent };
    let Some(head) = input.head()? else { return Ok(None) };
    let workers = workers.max(1);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<(usize, Manifests)>> = Mutex::new(Vec::new());
    // A bounded queue: the reader waits rather than holding more text than the workers take.
    let (send, receive) = mpsc::sync_channel::<(usize, String)>(workers);
    let receive = Mutex::new(receive);
    let tail = std::thread::scope(|s| -> std::io::Result<Option<String>> {
        for _ in 0..workers {
            let (receive, failed, results, spend) = (&receive, &failed, &results, spend.clone());
            let work = move || loop {
                let next = receive.lock().ok().and_then(|r| r.recv().ok());
                let Some((index, part)) = next else { return };
                if failed.load(Ordering::Relaxed) {
                    continue;
                }
                match read_part(&part, source, prune) {
                    Some(m) => results.lock().map(|mut r| r.push((index, m))).unwrap_or(()),
                    None => failed.store(true, Ordering::Relaxed),
                }
                // The reader may have finished: then the buffer is simply freed.
                let _ = spend.send(part.into_bytes());
            };
            // With a thread short, the usual reading (on this thread) rather than a slower one.
            if std::thread::Builder::new().stack_size(crate::parallel::STACK).spawn_scoped(s, work).is_err() {
                failed.store(true, Ordering::Relaxed);
            }
        }
        let mut index = 0;
        let tail = loop {
            if failed.load(Ordering::Relaxed) {
                break None;
            }
            match input.next_part(part_bytes)? {
                Next::Part(part) => {
                    if send.send((index, part)).is_err() {
                        break None;
                    }
                    index += 1;
                }
                Next::Last { items, tail } => {
                    if !items.is_empty() && send.send((index, items)).is_err() {
                        break None;
                    }
                    break Some(tail);
                }
                Next::Stop => break None,
            }
        };
        drop(send);
        Ok(tail)
    })?;
    let Some(tail) = tail else { return Ok(None) };
    if failed.load(Ordering::Relaxed) {
        return Ok(None);
    }
    if !frame_is_an_empty_list(&head, &tail, source, prune) {
        return Ok(None);
    }
    let Ok(mut parts) = results.into_inner() else { return Ok(None) };
    if parts.is_empty() {
        return Ok(None);
    }
    parts.sort_by_key(|(index, _)| *index);
    Ok(join(parts.into_iter().map(|(_, part)| Some(part))))
}

/// One part: whole items, read as `list_parts` reads its parts, and with the checks the whole
/// text gets before it is read in parts.
fn read_part(part: &str, source: &str, prune: Prune) -> Option<Manifests> {
    // A second top-level `items` would replace the first's: the usual reading knows how.
    if part.contains("\nitems:") || flow_nesting_exceeds(part, MAX_FLOW_DEPTH) {
        return None;
    }
    read_chunk(part, source, prune)
}

/// What comes next from the stream.
enum Next {
    /// Whole items.
    Part(String),
    /// The stream ended: the last items, and what follows them (the List's `kind` and
    /// `metadata`).
    Last { items: String, tail: String },
    /// Not what this reader reads.
    Stop,
}

/// The stream and the bytes read from it but not handed on.
struct Input<'r, R: Read> {
    reader: &'r mut R,
    buffer: Vec<u8>,
    eof: bool,
    total: usize,
    /// Buffers of parts the workers have read, to hold later parts.
    spent: mpsc::Receiver<Vec<u8>>,
}

impl<R: Read> Input<'_, R> {
    /// Reads up to `want` more bytes into the buffer (fewer at the end of the stream).
    fn fill(&mut self, want: usize) -> std::io::Result<()> {
        if self.eof {
            return Ok(());
        }
        // Read into the spare capacity, which `read_to_end` leaves uninitialised until the
        // reader writes it: zeroing 8 MiB first (`resize`) was a pass over every byte.
        // `take` stops it at `want`; fewer bytes mean the stream ended.
        self.buffer.reserve(want);
        let n = (&mut *self.reader).take(want as u64).read_to_end(&mut self.buffer)?;
        self.eof = n < want;
        self.total += n;
        Ok(())
    }

    /// The List's text before `items:`, with the buffer left at the first item; `None` when
    /// the stream does not start as a List kubectl prints (JSON, UTF-16, CRLF, no items).
    fn head(&mut self) -> std::io::Result<Option<String>> {
        loop {
            let at = if self.buffer.starts_with(b"items:\n") {
                Some(0)
            } else {
                find(&self.buffer, b"\nitems:\n").map(|i| i + 1)
            };
            if let Some(items_line) = at {
                // The first item must follow; wait for its first bytes.
                let start = items_line + "items:\n".len();
                while self.buffer.len() < start + 2 && !self.eof {
                    self.fill(4096)?;
                }
                if !self.buffer.get(start..).is_some_and(|first| first.starts_with(b"- ")) {
                    return Ok(None);
                }
                let rest = self.buffer.split_off(start);
                let mut head = std::mem::replace(&mut self.buffer, rest);
                head.truncate(items_line);
                let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
                return Ok(String::from_utf8(head.to_vec()).ok());
            }
            if self.eof || self.buffer.len() > MAX_HEAD_BYTES {
                return Ok(None);
            }
            self.fill(4096)?;
        }
    }

    /// The next run of whole items of about `part_bytes`, or the last ones and the tail.
    fn next_part(&mut self, part_bytes: usize) -> std::io::Result<Next> {
        loop {
            if self.total > MAX_INPUT_BYTES {
                return Ok(Next::Stop);
            }
            if self.eof {
                let rest = std::mem::take(&mut self.buffer);
                let Ok(rest) = String::from_utf8(rest) else { return Ok(Next::Stop) };
                let end = items_end(&rest);
                let tail = rest.get(end..).unwrap_or_default().to_string();
                // A second top-level `items` would replace the first's (as in `read_part`).
                if tail.starts_with("items:") || tail.contains("\nitems:") {
                    return Ok(Next::Stop);
                }
                let mut items = rest;
                items.truncate(end);
                return Ok(Next::Last { items, tail });
            }
            if self.buffer.len() >= part_bytes {
                // Cut before the last item that starts in the buffer, past the first byte (a
                // part is never empty).
                if let Some(at) = self.buffer.get(1..).and_then(|b| rfind(b, b"\n- ")) {
                    let cut = 1 + at + 1;
                    let mut rest = self.spent.try_recv().unwrap_or_default();
                    rest.clear();
                    rest.extend_from_slice(self.buffer.get(cut..).unwrap_or_default());
                    self.buffer.truncate(cut);
                    let part = std::mem::replace(&mut self.buffer, rest);
                    return Ok(match String::from_utf8(part) {
                        Ok(part) => Next::Part(part),
                        Err(_) => Next::Stop,
                    });
                }
            }
            self.fill(part_bytes)?;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    /// A reader that hands out `step` bytes at a time, as a pipe may.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn streamed_list(text: &str, part_bytes: usize, step: usize, workers: usize) -> Option<Manifests> {
        read_with(Trickle { bytes: text.as_bytes(), step }, "src", part_bytes, workers).expect("no IO error")
    }

    /// A generated snapshot (nodes and pods as kubectl prints them, and with storage objects
    /// and pods mounting claims) reads as the whole text does, whatever the part size, the
    /// reads' sizes and the number of workers.
    #[test]
    fn a_snapshot_streams_as_it_reads_whole() {
        let mut with_storage = Vec::new();
        crate::testing::bench_common::write_kubectl_get_storage_nodes_and_pods_yaml(&mut with_storage, 12, 8, 6)
            .expect("writing to a Vec");
        let with_storage = String::from_utf8(with_storage).expect("UTF-8");
        for (text, claims) in
            [(crate::testing::bench_common::kubectl_get_nodes_and_pods_yaml(12, 5), 0), (with_storage, 6)]
        {
            let whole = parse_manifests(&text, "src").unwrap();
            let with_claims = whole
                .workloads
                .iter()
                .filter(|w| w.template.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some()));
            assert_eq!(
                (with_claims.count(), whole.storage.claims.len(), whole.storage.volumes.len()),
                (claims, claims, claims)
            );
            let whole = format!("{whole:?}");
            for (part_bytes, step, workers) in
                [(64, 999, 1), (4096, 1000, 2), (20_000, 65536, 3), (1 << 30, 1 << 20, 2)]
            {
                let read = streamed_list(&text, part_bytes, step, workers).expect("streamed");
                assert_eq!(
                    format!("{read:?}"),
                    whole,
                    "parts of {part_bytes} bytes, reads of {step}, {workers} workers"
                );
            }
        }
    }

    #[test]
    fn the_list_of_list_parts_streams_as_it_reads_whole() {
        let text = super::super::list_parts::tests::LIST;
        let whole = format!("{:?}", parse_manifests(text, "src").unwrap());
        for part_bytes in [1, 50, 200, 1 << 20] {
            let read = streamed_list(text, part_bytes, 3, 2).expect("streamed");
            assert_eq!(format!("{read:?}"), whole, "parts of {part_bytes} bytes");
        }
        let with_bom = format!("{}{text}", super::super::text::BOM);
        assert_eq!(format!("{:?}", streamed_list(&with_bom, 64, 5, 2).expect("streamed")), whole);
    }

    #[test]
    fn anything_else_is_left_to_the_usual_reading() {
        let list = super::super::list_parts::tests::LIST;
        let cases = [
            ("not a List", list.replace("kind: List", "kind: Thing")),
            ("a second document", format!("{list}---\nkind: Node\nmetadata: {{name: c}}\n")),
            ("a document marker between items", list.replace("# a comment", "---\n# a comment")),
            ("a second items key", format!("{list}items: []\n")),
            ("an item that does not read", list.replace("    name: cm", "    name: [cm")),
            ("no items", "apiVersion: v1\nitems: []\nkind: List\n".to_string()),
            ("CRLF", list.replace('\n', "\r\n")),
            ("JSON", "{\"apiVersion\": \"v1\", \"items\": [], \"kind\": \"List\"}".to_string()),
            ("a key between items", list.replace("# a comment between items", "foo: bar")),
        ];
        for (name, text) in cases {
            for part_bytes in [1, 64, 1 << 20] {
                assert!(streamed_list(&text, part_bytes, 5, 2).is_none(), "{name}, parts of {part_bytes}");
            }
        }
        let not_utf8 = [list.as_bytes(), b"# \xff\n"].concat();
        assert!(read_with(&not_utf8[..], "src", 64, 2).unwrap().is_none());
    }

    #[test]
    fn the_reader_s_errors_are_returned() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        assert_eq!(read_with(Failing, "src", 64, 2).unwrap_err().to_string(), "disk on fire");
    }
}
