//! The one little-endian binary reader and writer behind every binary file
//! damone writes (the replay window, the optimiser state, player files and
//! the self-play games in flight), with typed errors: a short, crafted or
//! foreign file is an error naming what is wrong, never a panic.
//!
//! Every file starts with an 8-byte magic and a `u32` format version
//! ([`Writer::header`], [`Reader::header`]). A file that stands alone
//! ends with the CRC-32 of everything before it
//! ([`Writer::finish_with_crc32`], [`crc32_body`]), the project's one
//! checksum; the files of a checkpoint folder are checked by the CRC-32s
//! its `state.toml` records.

/// Why binary data could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BinError {
    /// The data does not begin with the format's magic bytes.
    #[error("not a {what} (bad magic bytes)")]
    BadMagic {
        /// What the data should have been.
        what: &'static str,
    },
    /// The data has a format version this build does not read.
    #[error("{what} has format version {found}; this build reads version {supported}")]
    Version {
        /// What the data is.
        what: &'static str,
        /// Its version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The data ends before a value it announces.
    #[error("{what} is truncated (needed {needed} bytes at offset {at}, {len} in all)")]
    Truncated {
        /// What the data is.
        what: &'static str,
        /// Where the value begins.
        at: usize,
        /// Bytes the value needs.
        needed: usize,
        /// The data's length.
        len: usize,
    },
    /// Bytes follow the data's end.
    #[error("{what} has {bytes} trailing bytes")]
    Trailing {
        /// What the data is.
        what: &'static str,
        /// Bytes after its end.
        bytes: usize,
    },
    /// A value is out of its range; `why` says which.
    #[error("{what}: {why}")]
    Invalid {
        /// What the data is.
        what: &'static str,
        /// What is wrong.
        why: String,
    },
}

impl BinError {
    fn trailing(what: &'static str, bytes: usize) -> BinError {
        BinError::Trailing { what, bytes }
    }
}

/// The bytes before a trailing `u32` CRC-32 of them, where that CRC
/// matches (files that end with one: tables, learned evaluations).
pub fn crc32_body(bytes: &[u8]) -> Option<&[u8]> {
    let body = bytes.len().checked_sub(4)?;
    let stored = u32::from_le_bytes(bytes[body..].try_into().expect("4 bytes"));
    (crc32fast::hash(&bytes[..body]) == stored).then_some(&bytes[..body])
}

/// Appends little-endian values to a byte vector.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Writer {
        Writer::default()
    }
    /// Magic and format version.
    pub fn header(magic: &[u8; 8], version: u32) -> Writer {
        let mut w = Writer::new();
        w.bytes(magic);
        w.u32(version);
        w
    }
    /// Append a byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// Append a `u16`, little-endian.
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Append a `u32`, little-endian.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Append a `u64`, little-endian.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Append an `f32`, little-endian.
    pub fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Raw bytes, no length.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// A `u32` length and the bytes.
    pub fn blob(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.bytes(b);
    }
    /// A `u64` length and the bytes (for large payloads).
    pub fn blob64(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes(b);
    }
    /// A `u16` length and the UTF-8 bytes of a short string.
    pub fn str16(&mut self, s: &str) {
        let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
        self.u16(b.len() as u16);
        self.bytes(b);
    }
    /// The bytes written so far (e.g. to checksum them).
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }
    /// The bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
    /// The bytes followed by a `u32` CRC-32 of them (read back by
    /// [`crc32_body`]).
    pub fn finish_with_crc32(mut self) -> Vec<u8> {
        let crc = crc32fast::hash(&self.buf);
        self.u32(crc);
        self.buf
    }
}

/// Reads little-endian values from a byte slice; every read checks bounds.
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `data`; `what` names the format in errors ("replay file").
    pub fn new(data: &'a [u8], what: &'static str) -> Reader<'a> {
        Reader { data, at: 0, what }
    }

    /// Check the magic and the version; returns the version (which must be
    /// one of `supported`, the newest last).
    pub fn header(&mut self, magic: &[u8; 8], supported: &[u32]) -> Result<u32, BinError> {
        if self.data.len() < 8 || &self.data[..8] != magic {
            return Err(BinError::BadMagic { what: self.what });
        }
        self.at = 8;
        let v = self.u32()?;
        if !supported.contains(&v) {
            return Err(BinError::Version {
                what: self.what,
                found: v,
                supported: supported.last().copied().unwrap_or(0),
            });
        }
        Ok(v)
    }

    /// An error of this format. Text from the file in `why` is made safe
    /// to print on one line (control characters replaced, cut to 200
    /// characters).
    pub fn invalid(&self, why: impl Into<String>) -> BinError {
        let why: String = why
            .into()
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .take(200)
            .collect();
        BinError::Invalid { what: self.what, why }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], BinError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(BinError::Truncated {
                what: self.what,
                at: self.at,
                needed: n,
                len: self.data.len(),
            });
        };
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], BinError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    /// The next byte.
    pub fn u8(&mut self) -> Result<u8, BinError> {
        Ok(self.array::<1>()?[0])
    }
    /// The next `u16`, little-endian.
    pub fn u16(&mut self) -> Result<u16, BinError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    /// The next `u32`, little-endian.
    pub fn u32(&mut self) -> Result<u32, BinError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// The next `u64`, little-endian.
    pub fn u64(&mut self) -> Result<u64, BinError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// The next `f32`, little-endian.
    pub fn f32(&mut self) -> Result<f32, BinError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    /// A length written by [`Writer::blob`] and that many bytes.
    pub fn blob(&mut self) -> Result<&'a [u8], BinError> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// A length written by [`Writer::blob64`] and that many bytes.
    pub fn blob64(&mut self) -> Result<&'a [u8], BinError> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| self.invalid(format!("length {n} too large")))?;
        self.take(n)
    }
    /// A string written by [`Writer::str16`].
    pub fn str16(&mut self) -> Result<&'a str, BinError> {
        let n = self.u16()? as usize;
        let b = self.take(n)?;
        std::str::from_utf8(b).map_err(|_| self.invalid("a string is not UTF-8"))
    }
    /// A count of items that each take at least `min_item_bytes`: rejects
    /// counts the remaining bytes cannot hold (so a crafted count cannot
    /// make the reader allocate without bound).
    pub fn count(&mut self, min_item_bytes: usize) -> Result<usize, BinError> {
        let n = self.u64()?;
        let left = self.remaining() as u64;
        if n.saturating_mul(min_item_bytes.max(1) as u64) > left {
            return Err(BinError::Truncated {
                what: self.what,
                at: self.at,
                needed: n.saturating_mul(min_item_bytes as u64).min(usize::MAX as u64) as usize,
                len: self.data.len(),
            });
        }
        Ok(n as usize)
    }
    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.at
    }
    /// Error unless everything was read.
    pub fn end(&self) -> Result<(), BinError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(BinError::trailing(self.what, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_typed_errors() {
        let mut w = Writer::header(b"TESTFILE", 2);
        w.u8(7);
        w.u16(300);
        w.f32(1.5);
        w.str16("héllo");
        w.blob(&[1, 2, 3]);
        w.u64(2);
        let b = w.finish();
        let mut r = Reader::new(&b, "test file");
        assert_eq!(r.header(b"TESTFILE", &[1, 2]).unwrap(), 2);
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u16().unwrap(), 300);
        assert_eq!(r.f32().unwrap(), 1.5);
        assert_eq!(r.str16().unwrap(), "héllo");
        assert_eq!(r.blob().unwrap(), &[1, 2, 3]);
        // A count of 2 items of 8 bytes cannot fit in 0 remaining bytes.
        assert!(matches!(r.count(8), Err(BinError::Truncated { .. })));
        let mut r = Reader::new(&b, "test file");
        assert!(matches!(
            r.header(b"TESTFILE", &[1]),
            Err(BinError::Version {
                found: 2,
                supported: 1,
                ..
            })
        ));
        let mut r = Reader::new(b"short", "test file");
        assert!(matches!(
            r.header(b"TESTFILE", &[1]),
            Err(BinError::BadMagic { .. })
        ));
        let mut r = Reader::new(&b[..13], "test file");
        r.header(b"TESTFILE", &[2]).unwrap();
        r.u8().unwrap();
        let e = r.u16().unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        let mut r = Reader::new(&b, "test file");
        r.take(3).unwrap();
        assert!(r.end().is_err());
    }
}
