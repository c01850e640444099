//! Sealed segments: one model's answers frozen into an immutable file beside the cache
//! database, bucketed by key so that a lookup is one positioned read of one page (a descent of
//! SQLite's B-tree costs several page visits and most of a lookup's CPU). `cache compact` writes
//! them ([`crate::cache_admin::compact`]); a segment is never changed once renamed into place,
//! only replaced whole by the next compaction, and its answers leave the database in the same
//! transaction that names it.
//!
//! Layout (little-endian; pages of [`PAGE`] bytes):
//! * page 0, the header: [`MAGIC`], the home pages `H`, the pages written `E` (at least `H`: the
//!   last home pages may overflow into more), the number of answers, the heap's length, blake3
//!   of every byte after the header (checked by `cache verify`, not on every open), the page
//!   size;
//! * pages 1 to `E`: a `u16` count, 6 bytes of padding, then that many records of a 32-byte key
//!   and the `u64` heap offset of its answer, keys increasing across all pages;
//! * the heap: each distinct answer once, as the database's columns hold it: `u32` length + the
//!   label's JSON, then a tag (0: no decision API, 1: a decision column follows as `u32` length
//!   + JSON, `null` for an escalation).
//!
//! A key's home page is its first 8 bytes as a fraction of `H` (keys are blake3 hashes: pages
//! fill evenly, and home pages follow key order). Records are laid in key order, each in its home
//! page or, when that is full, in the next page with room. So a lookup reads its home page and
//! reads on only while a page is full and every key in it is smaller than the one sought.
//!
//! Reads are positioned reads of a `File` ([`read_at`]; no memory map: the crate forbids unsafe
//! code, and mapped pages would count in the process's memory).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// The first bytes of every segment (and its format: bumped when the layout changes).
pub(crate) const MAGIC: &[u8; 16] = b"capkit-segment/1";
/// Bytes per page: one read per lookup. 1 KiB (25 records) against 4 KiB (102): the copy out of
/// the page cache is most of a read's cost, and 1 KiB took 10 % less CPU per lookup at 2M
/// answers for 5 % more bytes per answer (docs/model-protocol.md).
pub(crate) const PAGE: usize = 1024;
/// A record: the key and its answer's heap offset.
const RECORD: usize = 40;
/// Bytes before a page's records.
const PAGE_HEAD: usize = 8;
/// Records per page.
const PER_PAGE: usize = (PAGE - PAGE_HEAD) / RECORD;
/// Records per home page aimed at (19 of 25: a record lands past its home page about once in
/// 25, and its lookup then reads the next page too).
const FILL: u64 = 19;
/// Distinct answers the writer remembers to store once (past it, a new answer is stored each
/// time it appears: memory stays bounded for caches of free-text answers).
const MAX_SHARED: usize = 1 << 16;

/// A stored answer as the database's columns hold it: the label's JSON, and the decision's
/// JSON (`None`: a model without a decision API; `"null"`: an escalation).
pub(crate) type Columns = (String, Option<String>);

/// Fills `buf` from `file` at `offset` (`pread` on Unix, `ReadFile` at an offset on Windows).
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        // `seek_read` may read less, and moves the file's cursor, which nothing else uses.
        let mut done = 0;
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            ) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(io::ErrorKind::Unsupported.into())
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    if let Some(s) = bytes.get(at..at + 8) {
        b.copy_from_slice(s);
    }
    u64::from_le_bytes(b)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let s = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The home page of `key` among `home` pages.
fn home_of(key: &[u8; 32], home: u64) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&key[..8]);
    ((u128::from(u64::from_be_bytes(first)) * u128::from(home)) >> 64) as u64
}

/// The count of records in a page (a damaged count is clamped to the page).
fn count_of(page: &[u8]) -> usize {
    let count = page
        .get(..2)
        .map_or(0, |c| usize::from(u16::from_le_bytes([c[0], c[1]])));
    count.min(PER_PAGE)
}

fn record_key(page: &[u8], i: usize) -> &[u8] {
    let at = PAGE_HEAD + i * RECORD;
    page.get(at..at + 32).unwrap_or(&[])
}

/// Writes a segment: records pushed in increasing key order, then [`SegmentWriter::finish`].
pub(crate) struct SegmentWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    heap_tmp: PathBuf,
    heap: BufWriter<File>,
    heap_len: u64,
    digest: blake3::Hasher,
    home: u64,
    page: Vec<u8>,
    /// The page being filled, and its record count.
    current: u64,
    count: usize,
    answers: u64,
    last: Option<[u8; 32]>,
    shared: HashMap<Columns, u64>,
    /// The temporary files, removed if the writer is dropped before it finishes. Declared
    /// last: dropped after the files' handles (Windows cannot remove an open file).
    leftovers: RemoveOnDrop,
}

/// Files removed when this is dropped (temporary files of an unfinished build), unless
/// [`RemoveOnDrop::keep`] was called.
#[derive(Default)]
pub(crate) struct RemoveOnDrop(Vec<PathBuf>);

impl RemoveOnDrop {
    /// Removes `path` on drop too.
    pub(crate) fn add(&mut self, path: &Path) {
        self.0.push(path.to_owned());
    }

    /// Removes nothing: the files were renamed into place (or are gone).
    pub(crate) fn keep(&mut self) {
        self.0.clear();
    }
}

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for path in &self.0 {
            // Best effort: a file never created, or already removed, is fine.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A file name part no other writer has used: this process, the time and a count (two
/// writers of one process within one clock tick).
pub(crate) fn unique_suffix() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{:x}-{nanos:x}-{n:x}", std::process::id())
}

impl SegmentWriter {
    /// A writer of the segment that will be `path`, for about `expected` answers (an upper bound
    /// is fine: pages are then a little emptier). Writes go to temporary files beside `path`,
    /// named for this writer alone (two processes may build one `file:` model's segment at
    /// once), until [`SegmentWriter::finish`] renames the segment into place; a writer dropped
    /// unfinished (an error, a refused input) removes them.
    pub(crate) fn create(path: &Path, expected: u64) -> io::Result<SegmentWriter> {
        let unique = unique_suffix();
        let with = |suffix: &str| {
            let mut p = path.as_os_str().to_owned();
            p.push(format!(".{unique}{suffix}"));
            PathBuf::from(p)
        };
        let (tmp, heap_tmp) = (with(".tmp"), with(".heap.tmp"));
        let mut leftovers = RemoveOnDrop::default();
        leftovers.add(&tmp);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        out.write_all(&[0u8; PAGE])?;
        leftovers.add(&heap_tmp);
        let heap = BufWriter::with_capacity(1 << 20, File::create(&heap_tmp)?);
        Ok(SegmentWriter {
            path: path.to_owned(),
            tmp,
            out,
            heap_tmp,
            heap,
            leftovers,
            heap_len: 0,
            digest: blake3::Hasher::new(),
            home: expected.div_ceil(FILL).max(1),
            page: vec![0u8; PAGE],
            current: 0,
            count: 0,
            answers: 0,
            last: None,
            shared: HashMap::new(),
        })
    }

    fn flush_page(&mut self) -> io::Result<()> {
        self.page[..2].copy_from_slice(&(self.count as u16).to_le_bytes());
        self.out.write_all(&self.page)?;
        self.digest.update(&self.page);
        self.page.fill(0);
        self.current += 1;
        self.count = 0;
        Ok(())
    }

    /// The heap offset of `answer`, stored now unless it was stored before.
    fn heap_offset(&mut self, answer: Columns) -> io::Result<u64> {
        if let Some(&at) = self.shared.get(&answer) {
            return Ok(at);
        }
        let at = self.heap_len;
        let mut entry = Vec::with_capacity(answer.0.len() + 16);
        let len =
            |s: &str| u32::try_from(s.len()).map_err(|_| invalid("an answer over 4 GiB".into()));
        entry.extend_from_slice(&len(&answer.0)?.to_le_bytes());
        entry.extend_from_slice(answer.0.as_bytes());
        match &answer.1 {
            None => entry.push(0),
            Some(d) => {
                entry.push(1);
                entry.extend_from_slice(&len(d)?.to_le_bytes());
                entry.extend_from_slice(d.as_bytes());
            }
        }
        self.heap.write_all(&entry)?;
        self.heap_len += entry.len() as u64;
        if self.shared.len() < MAX_SHARED {
            self.shared.insert(answer, at);
        }
        Ok(at)
    }

    /// Adds the answer of `key` (keys strictly increasing; a repeated key is skipped).
    pub(crate) fn push(&mut self, key: [u8; 32], answer: Columns) -> io::Result<()> {
        match self.last {
            Some(last) if key == last => return Ok(()),
            Some(last) if key < last => {
                return Err(invalid("segment keys out of order".to_owned()));
            }
            _ => {}
        }
        let at = self.heap_offset(answer)?;
        let home = home_of(&key, self.home);
        while self.current < home || self.count == PER_PAGE {
            self.flush_page()?;
        }
        let o = PAGE_HEAD + self.count * RECORD;
        self.page[o..o + 32].copy_from_slice(&key);
        self.page[o + 32..o + RECORD].copy_from_slice(&at.to_le_bytes());
        self.count += 1;
        self.answers += 1;
        self.last = Some(key);
        Ok(())
    }

    /// Writes the last pages, the heap and the header, makes the file durable and renames it
    /// into place. Returns the answers written.
    pub(crate) fn finish(mut self) -> io::Result<u64> {
        self.flush_page()?;
        while self.current < self.home {
            self.flush_page()?;
        }
        let extent = self.current;
        drop(self.heap.into_inner().map_err(|e| e.into_error())?);
        let mut heap = File::open(&self.heap_tmp)?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = heap.read(&mut buf)?;
            if n == 0 {
                break;
            }
            self.out.write_all(&buf[..n])?;
            self.digest.update(&buf[..n]);
        }
        drop(heap);
        std::fs::remove_file(&self.heap_tmp)?;
        let mut header = vec![0u8; PAGE];
        header[..16].copy_from_slice(MAGIC);
        for (i, v) in [self.home, extent, self.answers, self.heap_len]
            .into_iter()
            .enumerate()
        {
            header[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        header[48..80].copy_from_slice(self.digest.finalize().as_bytes());
        header[80..88].copy_from_slice(&(PAGE as u64).to_le_bytes());
        let mut file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)?;
        self.leftovers.keep();
        // The rename itself made durable before the database names the file (a directory
        // cannot be opened as a file on Windows, where the rename is durable on its own).
        #[cfg(unix)]
        if let Some(dir) = self.path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(self.answers)
    }
}

/// An open segment, read with positioned reads (shareable: no cursor).
pub(crate) struct Segment {
    file: File,
    home: u64,
    extent: u64,
    answers: u64,
    heap_at: u64,
    heap_len: u64,
    digest: [u8; 32],
}

/// A page read buffer, remembering which page it holds (a batch's neighbouring keys share one
/// read).
pub(crate) struct PageBuf {
    at: u64,
    bytes: Vec<u8>,
}

impl Default for PageBuf {
    fn default() -> Self {
        PageBuf {
            at: u64::MAX,
            bytes: vec![0u8; PAGE],
        }
    }
}

impl Segment {
    /// Opens `path`, checking its header against its length (not its digest: see `check`).
    pub(crate) fn open(path: &Path) -> io::Result<Segment> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut header = vec![0u8; PAGE];
        read_at(&file, &mut header, 0)?;
        if header.get(..16) != Some(&MAGIC[..]) {
            return Err(invalid(format!(
                "not a segment of this capkit (it does not start with `{}`)",
                String::from_utf8_lossy(MAGIC)
            )));
        }
        let page = u64_at(&header, 80);
        if page != PAGE as u64 {
            return Err(invalid(format!(
                "pages of {page} bytes, this capkit reads pages of {PAGE}"
            )));
        }
        let (home, extent, answers, heap_len) = (
            u64_at(&header, 16),
            u64_at(&header, 24),
            u64_at(&header, 32),
            u64_at(&header, 40),
        );
        let heap_at = extent
            .checked_add(1)
            .and_then(|p| p.checked_mul(PAGE as u64));
        let whole = heap_at.and_then(|h| h.checked_add(heap_len));
        if home == 0 || extent < home || whole != Some(len) {
            return Err(invalid(format!(
                "a damaged header ({home} home pages, {extent} pages, a {heap_len}-byte heap, \
                 in a file of {len} bytes)"
            )));
        }
        let mut digest = [0u8; 32];
        digest.copy_from_slice(&header[48..80]);
        Ok(Segment {
            file,
            home,
            extent,
            answers,
            heap_at: heap_at.unwrap_or(0),
            heap_len,
            digest,
        })
    }

    /// The answers it holds.
    pub(crate) fn answers(&self) -> u64 {
        self.answers
    }

    fn load(&self, page: u64, buf: &mut PageBuf) -> io::Result<()> {
        if buf.at != page {
            buf.at = u64::MAX;
            read_at(&self.file, &mut buf.bytes, (page + 1) * PAGE as u64)?;
            buf.at = page;
        }
        Ok(())
    }

    /// The heap offset of `key`'s answer, if the segment holds it.
    pub(crate) fn find(&self, key: &[u8; 32], buf: &mut PageBuf) -> io::Result<Option<u64>> {
        let mut page = home_of(key, self.home);
        while page < self.extent {
            self.load(page, buf)?;
            let count = count_of(&buf.bytes);
            let (mut lo, mut hi) = (0, count);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match record_key(&buf.bytes, mid).cmp(&key[..]) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => {
                        let at = PAGE_HEAD + mid * RECORD + 32;
                        return Ok(Some(u64_at(&buf.bytes, at)));
                    }
                }
            }
            if count < PER_PAGE || lo < count {
                break;
            }
            page += 1;
        }
        Ok(None)
    }

    /// The answer at heap offset `at`.
    pub(crate) fn answer(&self, at: u64) -> io::Result<Columns> {
        let damaged = || invalid(format!("a damaged answer at heap offset {at}"));
        let left = self.heap_len.checked_sub(at).ok_or_else(damaged)?;
        // Most answers are short: one read of up to 256 bytes, a second only for a longer one.
        let mut buf = vec![0u8; left.min(256) as usize];
        read_at(&self.file, &mut buf, self.heap_at + at)?;
        let need = |buf: &mut Vec<u8>, n: u64| -> io::Result<()> {
            if (buf.len() as u64) < n {
                if n > left {
                    return Err(damaged());
                }
                *buf = vec![0u8; n as usize];
                read_at(&self.file, buf, self.heap_at + at)?;
            }
            Ok(())
        };
        need(&mut buf, 5)?;
        let label_len = u64::from(u32_at(&buf, 0).ok_or_else(damaged)?);
        need(&mut buf, 5 + label_len)?;
        let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).map_err(|_| damaged());
        let end = 4 + label_len as usize;
        let label = text(buf.get(4..end).ok_or_else(damaged)?)?;
        let decision = match buf.get(end) {
            Some(0) => None,
            Some(1) => {
                need(&mut buf, end as u64 + 5)?;
                let len = u64::from(u32_at(&buf, end + 1).ok_or_else(damaged)?);
                need(&mut buf, end as u64 + 5 + len)?;
                Some(text(
                    buf.get(end + 5..end + 5 + len as usize)
                        .ok_or_else(damaged)?,
                )?)
            }
            _ => return Err(damaged()),
        };
        Ok((label, decision))
    }

    /// Its answers in key order, read page by page (for merging and exporting).
    pub(crate) fn in_order(&self) -> InOrder<'_> {
        InOrder {
            segment: self,
            buf: PageBuf::default(),
            page: 0,
            index: 0,
            seen: HashMap::new(),
        }
    }

    /// The problems of the segment: a body that does not match its digest, keys out of order,
    /// a count that disagrees with the header, answers that are not JSON.
    pub(crate) fn check(&self) -> io::Result<Vec<String>> {
        let mut problems = Vec::new();
        let mut digest = blake3::Hasher::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = PAGE as u64;
        let end = self.heap_at + self.heap_len;
        while at < end {
            let n = buf.len().min((end - at) as usize);
            read_at(&self.file, &mut buf[..n], at)?;
            digest.update(&buf[..n]);
            at += n as u64;
        }
        if digest.finalize().as_bytes() != &self.digest {
            problems.push("its contents do not match the digest in its header".to_owned());
        }
        let mut last: Option<[u8; 32]> = None;
        let (mut n, mut unordered, mut bad) = (0u64, 0u64, 0u64);
        for answer in self.in_order() {
            let (key, (label, decision)) = match answer {
                Ok(answer) => answer,
                Err(e) => {
                    problems.push(e.to_string());
                    return Ok(problems);
                }
            };
            n += 1;
            if last.is_some_and(|l| l >= key) {
                unordered += 1;
            }
            last = Some(key);
            let json = |s: &str| serde_json::from_str::<serde_json::Value>(s).is_ok();
            if !json(&label) || decision.as_deref().is_some_and(|d| !json(d)) {
                bad += 1;
            }
        }
        if n != self.answers {
            problems.push(format!(
                "holds {n} answers, its header says {}",
                self.answers
            ));
        }
        if unordered > 0 {
            problems.push(format!("{unordered} keys out of order"));
        }
        if bad > 0 {
            problems.push(format!("{bad} answers that are not JSON"));
        }
        Ok(problems)
    }
}

/// A segment's answers in key order ([`Segment::in_order`]); the answers' columns are read
/// through a bounded table of those seen (a classifier's few labels are read once).
pub(crate) struct InOrder<'a> {
    segment: &'a Segment,
    buf: PageBuf,
    page: u64,
    index: usize,
    seen: HashMap<u64, Columns>,
}

impl Iterator for InOrder<'_> {
    type Item = io::Result<([u8; 32], Columns)>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.page < self.segment.extent {
            if let Err(e) = self.segment.load(self.page, &mut self.buf) {
                self.page = self.segment.extent;
                return Some(Err(e));
            }
            if self.index >= count_of(&self.buf.bytes) {
                self.page += 1;
                self.index = 0;
                continue;
            }
            let i = self.index;
            self.index += 1;
            let mut key = [0u8; 32];
            key.copy_from_slice(record_key(&self.buf.bytes, i));
            let at = u64_at(&self.buf.bytes, PAGE_HEAD + i * RECORD + 32);
            if let Some(answer) = self.seen.get(&at) {
                return Some(Ok((key, answer.clone())));
            }
            return Some(match self.segment.answer(at) {
                Ok(answer) => {
                    if self.seen.len() >= MAX_SHARED {
                        self.seen.clear();
                    }
                    self.seen.insert(at, answer.clone());
                    Ok((key, answer))
                }
                Err(e) => Err(e),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn key(i: u64) -> [u8; 32] {
        *blake3::hash(&i.to_le_bytes()).as_bytes()
    }

    fn write(path: &Path, n: u64, expected: u64) -> Vec<[u8; 32]> {
        let mut keys: Vec<[u8; 32]> = (0..n).map(key).collect();
        keys.sort_unstable();
        let mut w = SegmentWriter::create(path, expected).unwrap();
        for (i, k) in keys.iter().enumerate() {
            let decision = match i % 3 {
                0 => None,
                1 => Some("null".to_owned()),
                _ => Some(format!("\"d{}\"", i % 5)),
            };
            w.push(*k, (format!("\"l{}\"", i % 7), decision)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), n);
        keys
    }

    #[test]
    fn every_key_is_found_and_others_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        // Expected far below the real count: pages overflow into their neighbours.
        for (n, expected) in [(0, 0), (1, 1), (5_000, 5_000), (5_000, 100)] {
            let path = tmp.path().join(format!("{n}-{expected}.seg"));
            let keys = write(&path, n, expected);
            let seg = Segment::open(&path).unwrap();
            assert_eq!(seg.answers(), n);
            let mut buf = PageBuf::default();
            for (i, k) in keys.iter().enumerate() {
                let at = seg.find(k, &mut buf).unwrap().unwrap();
                let (label, decision) = seg.answer(at).unwrap();
                assert_eq!(label, format!("\"l{}\"", i % 7));
                assert_eq!(decision.is_none(), i % 3 == 0);
            }
            for i in n..n + 2_000 {
                assert_eq!(seg.find(&key(i), &mut buf).unwrap(), None);
            }
            assert_eq!(seg.check().unwrap(), Vec::<String>::new());
            let in_order: Vec<[u8; 32]> = seg.in_order().map(|a| a.unwrap().0).collect();
            assert_eq!(in_order, keys);
        }
    }

    #[test]
    fn keys_out_of_order_are_refused_and_repeats_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let mut w = SegmentWriter::create(&tmp.path().join("s"), 3).unwrap();
        let a = ("1".to_owned(), None);
        w.push([2; 32], a.clone()).unwrap();
        w.push([2; 32], a.clone()).unwrap();
        assert!(w.push([1; 32], a).is_err());
    }

    #[test]
    fn a_writer_dropped_unfinished_leaves_no_file_and_two_writers_share_no_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.seg");
        let mut a = SegmentWriter::create(&path, 2).unwrap();
        let mut b = SegmentWriter::create(&path, 2).unwrap();
        a.push([1; 32], ("1".to_owned(), None)).unwrap();
        b.push([1; 32], ("2".to_owned(), None)).unwrap();
        // Four temporary files: none shared.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 4);
        drop(a);
        assert_eq!(b.finish().unwrap(), 1);
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["s.seg"]);
        let seg = Segment::open(&path).unwrap();
        let at = seg
            .find(&[1; 32], &mut PageBuf::default())
            .unwrap()
            .unwrap();
        assert_eq!(seg.answer(at).unwrap().0, "2");
    }

    #[test]
    fn a_damaged_segment_is_named_not_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.seg");
        write(&path, 300, 300);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let problems = Segment::open(&path).unwrap().check().unwrap();
        assert!(
            problems.iter().any(|p| p.contains("digest")),
            "{problems:?}"
        );
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&path, &bytes).unwrap();
        let err = Segment::open(&path).err().unwrap().to_string();
        assert!(err.contains("damaged header"), "{err}");
        std::fs::write(&path, b"not a segment").unwrap();
        assert!(Segment::open(&path).is_err());
    }
}
