//! Reading `model.safetensors`: an 8-byte header length, a JSON header naming each tensor's
//! dtype, shape and byte range, then the raw little-endian data. A file in the user cache is
//! memory-mapped, so a query touches only the embedding rows it uses; any other file is read
//! into memory, since a mapping of a file that someone truncates (a workspace can ship a model
//! folder) is memory that changes or faults under safe code.

use super::Error;
use memmap2::Mmap;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The file's bytes: mapped (only files nobody truncates) or read.
enum Bytes {
    Mapped(std::sync::Arc<Mmap>),
    Read(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Read(v) => v,
        }
    }
}

pub struct Tensors {
    path: PathBuf,
    map: Bytes,
    data_start: usize,
    entries: HashMap<String, Entry>,
}

/// f32 values either borrowed from the mapped file or copied out of it (when the file's data is
/// not 4-byte aligned, or on a big-endian machine).
pub enum F32s {
    Mapped {
        map: std::sync::Arc<Mmap>,
        start: usize,
        len: usize,
    },
    Owned(Vec<f32>),
}

impl F32s {
    pub fn as_slice(&self) -> &[f32] {
        match self {
            F32s::Mapped { map, start, len } => {
                let bytes = &map[*start..*start + len * 4];
                // SAFETY: `Tensors::f32` made this variant only for a 4-byte aligned `start`
                // on a little-endian machine; the range is inside the mapping (slicing above
                // checks), every bit pattern is a valid f32, and the mapped file is not
                // truncated while mapped (`Tensors::open`'s contract).
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), *len) }
            }
            F32s::Owned(v) => v,
        }
    }
}

impl Tensors {
    /// Opens `path`, mapping it only when `mappable`: the caller vouches that nobody truncates
    /// or rewrites the file in place (the user cache's model folder, see `model::is_cache`).
    pub fn open(path: &Path, mappable: bool) -> Result<Tensors, Error> {
        let map = if mappable {
            let file = std::fs::File::open(path).map_err(|e| Error::at(path, e))?;
            // SAFETY: a mapping stays valid while the file is neither truncated nor rewritten;
            // `mappable` is true only for the user cache's model folder, where files are only
            // ever replaced by renaming a new file over them (`model::download`).
            Bytes::Mapped(std::sync::Arc::new(
                unsafe { Mmap::map(&file) }.map_err(|e| Error::at(path, e))?,
            ))
        } else {
            Bytes::Read(std::fs::read(path).map_err(|e| Error::at(path, e))?)
        };
        let bad = |what: &str| Error::at(path, format!("not a safetensors file ({what})"));
        if map.len() < 8 {
            return Err(bad("too short"));
        }
        let n = u64::from_le_bytes(map[..8].try_into().expect("8 bytes")) as usize;
        if n > map.len() - 8 {
            return Err(bad("header length past the end"));
        }
        let header: HashMap<String, serde_json::Value> =
            serde_json::from_slice(&map[8..8 + n]).map_err(|e| bad(&format!("header: {e}")))?;
        let data_start = 8 + n;
        let mut entries = HashMap::new();
        for (name, v) in header {
            if name == "__metadata__" {
                continue;
            }
            let e: Entry = serde_json::from_value(v).map_err(|e| bad(&format!("{name}: {e}")))?;
            if e.data_offsets[0] > e.data_offsets[1] || data_start + e.data_offsets[1] > map.len() {
                return Err(bad(&format!("{name}: data past the end of the file")));
            }
            entries.insert(name, e);
        }
        Ok(Tensors {
            path: path.to_path_buf(),
            map,
            data_start,
            entries,
        })
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The f32 tensor `name`, which must have exactly `shape`.
    pub fn f32(&self, name: &str, shape: &[usize]) -> Result<F32s, Error> {
        let e = self
            .entries
            .get(name)
            .ok_or_else(|| Error::at(&self.path, format!("tensor {name} is missing")))?;
        if e.dtype != "F32" {
            return Err(Error::at(
                &self.path,
                format!("tensor {name} is {}, expected F32", e.dtype),
            ));
        }
        if e.shape != shape {
            return Err(Error::at(
                &self.path,
                format!("tensor {name} has shape {:?}, expected {shape:?}", e.shape),
            ));
        }
        let len: usize = shape.iter().product();
        let start = self.data_start + e.data_offsets[0];
        if e.data_offsets[1] - e.data_offsets[0] != len * 4 {
            return Err(Error::at(
                &self.path,
                format!("tensor {name}: size does not match its shape"),
            ));
        }
        let bytes = &self.map[start..start + len * 4];
        if let Bytes::Mapped(map) = &self.map
            && cfg!(target_endian = "little")
            && (bytes.as_ptr() as usize).is_multiple_of(4)
        {
            return Ok(F32s::Mapped {
                map: map.clone(),
                start,
                len,
            });
        }
        Ok(F32s::Owned(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
        ))
    }
}
