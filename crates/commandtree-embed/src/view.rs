//! Views of the activation buffers that a team of threads shares during one forward pass, and
//! the one place where parts of them are handed to threads.
//!
//! A buffer is a row-major matrix. A forward pass is a sequence of steps; each step is cut into
//! work items that the threads take (see `bert::Team::step`). Within one step, every item
//! touches its own rectangle (rows × columns) of a buffer: the rows of a token block, the
//! column panels of a product, the rows of one sequence × the columns of one head. A rectangle
//! written by one item is never read or written by another item of the same step, and a step
//! starts only after every item of the previous one has finished (an acquire/release counter),
//! so there is never a data race and never two live `&mut` to the same element.
//!
//! That invariant is the contract of the `unsafe` methods of [`SharedBuf`], which are called
//! only in `bert::Bert::member`, with rectangles computed from the item index by arithmetic
//! that makes distinct items disjoint. In debug builds (the tests) every view is recorded and
//! checked against the other views of its step, so a change that breaks the arithmetic fails
//! the tests instead of racing silently.

use std::marker::PhantomData;
use std::ops::Range;

/// A row-major matrix of `f32` shared by the members of a team for one forward pass.
pub(crate) struct SharedBuf<'a> {
    ptr: *mut f32,
    rows: usize,
    cols: usize,
    /// The buffer is borrowed exclusively for `'a`: nobody but the views touches it.
    _buf: PhantomData<&'a mut [f32]>,
    #[cfg(debug_assertions)]
    claims: std::sync::Mutex<Vec<Claim>>,
}

// SAFETY: a `SharedBuf` is a `&mut [f32]` whose parts are lent to several threads; it is as
// thread-safe as its views, whose `unsafe` constructors require that no two items of a step
// touch the same element unless both only read (see the module comment).
unsafe impl Send for SharedBuf<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedBuf<'_> {}

#[cfg(debug_assertions)]
#[derive(Debug, Clone)]
struct Claim {
    step: usize,
    rows: Range<usize>,
    cols: Range<usize>,
    write: bool,
}

impl<'a> SharedBuf<'a> {
    /// Shares `buf`, a matrix of rows of `cols` floats.
    pub fn new(buf: &'a mut [f32], cols: usize) -> SharedBuf<'a> {
        assert!(cols > 0 && buf.len().is_multiple_of(cols));
        SharedBuf {
            ptr: buf.as_mut_ptr(),
            rows: buf.len() / cols,
            cols,
            _buf: PhantomData,
            #[cfg(debug_assertions)]
            claims: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Records a view in debug builds and panics when it overlaps a view of another kind (or
    /// another write) taken in the same step. Views of earlier steps are forgotten: a step
    /// begins only when all items of the previous one are done.
    #[cfg_attr(not(debug_assertions), allow(unused_variables))]
    fn claim(&self, step: usize, rows: &Range<usize>, cols: &Range<usize>, write: bool) {
        assert!(
            rows.start <= rows.end && rows.end <= self.rows,
            "rows {rows:?}"
        );
        assert!(
            cols.start <= cols.end && cols.end <= self.cols,
            "columns {cols:?}"
        );
        #[cfg(debug_assertions)]
        {
            let mut claims = self.claims.lock().unwrap_or_else(|e| e.into_inner());
            claims.retain(|c| c.step >= step);
            let overlap = |a: &Range<usize>, b: &Range<usize>| a.start < b.end && b.start < a.end;
            if let Some(c) = claims.iter().find(|c| {
                c.step == step
                    && (c.write || write)
                    && overlap(&c.rows, rows)
                    && overlap(&c.cols, cols)
                    && !rows.is_empty()
                    && !cols.is_empty()
            }) {
                panic!(
                    "step {step}: view rows {rows:?} × columns {cols:?} (write: {write}) overlaps {c:?}"
                );
            }
            claims.push(Claim {
                step,
                rows: rows.clone(),
                cols: cols.clone(),
                write,
            });
        }
    }

    /// Whole rows, to read.
    ///
    /// # Safety
    /// No item of step `step` writes these rows, and every write of earlier steps has finished
    /// (the caller is a work item of `bert::Team::step`).
    pub unsafe fn rows(&self, step: usize, rows: Range<usize>) -> &[f32] {
        self.claim(step, &rows, &(0..self.cols), false);
        // SAFETY: in bounds (checked by `claim`); nobody writes these elements while the view
        // lives (caller's contract).
        unsafe {
            std::slice::from_raw_parts(self.ptr.add(rows.start * self.cols), rows.len() * self.cols)
        }
    }

    /// Whole rows, to write.
    ///
    /// # Safety
    /// No other item of step `step` reads or writes these rows, and every access of earlier
    /// steps has finished.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn rows_mut(&self, step: usize, rows: Range<usize>) -> &mut [f32] {
        self.claim(step, &rows, &(0..self.cols), true);
        // SAFETY: in bounds (checked by `claim`); exclusive while the view lives (caller's
        // contract).
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.add(rows.start * self.cols),
                rows.len() * self.cols,
            )
        }
    }

    /// A rectangle, to write (and read back).
    ///
    /// # Safety
    /// As [`SharedBuf::rows_mut`], for the rectangle.
    pub unsafe fn block_mut(
        &self,
        step: usize,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> BlockMut<'_> {
        self.claim(step, &rows, &cols, true);
        BlockMut {
            // Stays inside the buffer: `claim` checked the bounds.
            ptr: self.ptr.wrapping_add(rows.start * self.cols + cols.start),
            rows: rows.len(),
            width: cols.len(),
            stride: self.cols,
            _buf: PhantomData,
        }
    }
}

/// An exclusive view of a rectangle of a row-major matrix: `rows` rows of `width` floats, `stride`
/// floats apart. Unlike a `&mut [f32]` over the rows, it lends nothing outside its columns, so
/// two threads can write the columns of different heads of the same rows.
pub(crate) struct BlockMut<'b> {
    ptr: *mut f32,
    rows: usize,
    width: usize,
    stride: usize,
    _buf: PhantomData<&'b mut [f32]>,
}

impl<'b> BlockMut<'b> {
    /// Columns `cols` of the rows of `buf` (rows of `stride` floats).
    #[cfg(test)]
    pub fn of(buf: &'b mut [f32], stride: usize, cols: Range<usize>) -> BlockMut<'b> {
        assert!(stride > 0 && buf.len().is_multiple_of(stride));
        assert!(cols.start <= cols.end && cols.end <= stride);
        BlockMut {
            ptr: buf.as_mut_ptr().wrapping_add(cols.start),
            rows: buf.len() / stride,
            width: cols.len(),
            stride,
            _buf: PhantomData,
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Row `i` of the rectangle.
    pub fn row_mut(&mut self, i: usize) -> &mut [f32] {
        assert!(i < self.rows, "row {i} of {}", self.rows);
        // SAFETY: row i's `width` floats are inside the rectangle, which this view borrows
        // exclusively (from `&mut` in `of`, or by `SharedBuf::block_mut`'s contract); `&mut self`
        // keeps two rows from being lent at once.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.stride), self.width) }
    }

    /// The first element, for kernels that address the rectangle with pointer arithmetic;
    /// element (r, c) is at `r * stride + c` for `r < rows`, `c < width`.
    pub fn as_mut_ptr(&mut self) -> *mut f32 {
        self.ptr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_lend_only_their_columns() {
        let mut buf: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let mut b = BlockMut::of(&mut buf, 4, 1..3);
        assert_eq!((b.rows(), b.width()), (3, 2));
        assert_eq!(b.row_mut(2), &[9.0, 10.0]);
        b.row_mut(0)[1] = -1.0;
        assert_eq!(buf[2], -1.0);
    }

    #[test]
    #[cfg(debug_assertions)]
    fn overlapping_views_of_one_step_are_caught() {
        let mut buf = vec![0f32; 8 * 4];
        let shared = SharedBuf::new(&mut buf, 4);
        // SAFETY: single-threaded; the point is the debug check.
        unsafe {
            let _ = shared.block_mut(0, 0..8, 0..2);
            let _ = shared.block_mut(0, 0..8, 2..4);
            let _ = shared.rows(1, 0..8);
            let _ = shared.rows(1, 0..8);
            let _ = shared.rows_mut(2, 0..4);
        }
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            let _ = shared.rows(2, 3..5);
        }));
        assert!(caught.is_err(), "a read of rows another item writes");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            let _ = shared.block_mut(3, 0..2, 0..3);
            let _ = shared.block_mut(3, 1..2, 2..4);
        }));
        assert!(caught.is_err(), "two writes of one element");
    }
}
