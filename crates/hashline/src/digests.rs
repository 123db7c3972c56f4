//! SHA-1 of many messages at once: the first 32 bits of each digest, which
//! is all a HASH, an ANCHOR or a pair tag keeps.
//!
//! A view hashes every line it shows (twice in the full view). One SHA-1
//! block is a chain of 80 dependent rounds, so a single message leaves the
//! CPU's SHA units idle most of the time; the compression of several
//! independent messages, interleaved, fills them. On x86-64 with the SHA
//! extensions the blocks of `LANES` messages go through the rounds side by
//! side, and a message that ends hands its lane to the next one. Elsewhere
//! the `sha1` crate's compression function (which picks the CPU's SHA
//! instructions at run time on x86-64 and arm64) takes one block at a time.
//!
//! Messages are taken from a [`Padded`] buffer, which has room to read a
//! whole block past the end of any of them: a message's last block is then
//! one load, masked and padded in registers, not a copy of a few bytes,
//! whose unpredictable length costs as much as hashing them.
//!
//! Hand-written over `core::arch` because no crate compresses several
//! independent SHA-1 messages in one pass: the `sha1` crate's compression
//! function takes one chain of blocks, and the multi-buffer libraries
//! (Intel's isa-l_crypto) are C.

use sha1::block_api::compress;
use std::ops::Range;

/// Bytes from which messages are hashed: what was pushed, then a block of
/// zeros, so that a block read from any message's last partial block stays
/// inside the buffer.
#[derive(Debug, Default)]
pub(crate) struct Padded {
    bytes: Vec<u8>,
}

impl Padded {
    /// Empties the buffer, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Makes room for `more` bytes of messages.
    pub(crate) fn reserve(&mut self, more: usize) {
        self.bytes.reserve(more + 64);
    }

    /// Where the next bytes pushed go.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// The buffer, messages taken: the pushed bytes, then the block of zeros.
    pub(crate) fn finish(&mut self) -> Finished<'_> {
        let len = self.bytes.len();
        self.bytes.extend_from_slice(&[0; 64]);
        Finished {
            bytes: &self.bytes,
            len,
        }
    }
}

/// A [`Padded`] buffer whose messages are ready to be hashed.
#[derive(Clone, Copy)]
pub(crate) struct Finished<'a> {
    bytes: &'a [u8],
    len: usize,
}

impl Finished<'_> {
    /// The first word of SHA-1 of each message: `out[i]` for the bytes
    /// `ranges[i]` of what was pushed.
    pub(crate) fn first_words(&self, ranges: &[Range<usize>], out: &mut [u32]) {
        assert_eq!(ranges.len(), out.len());
        let message = |k: usize| {
            let range = &ranges[k];
            assert!(range.start <= range.end && range.end <= self.len);
            Message {
                bytes: &self.bytes[range.start..range.end + 64],
                len: range.end - range.start,
            }
        };
        #[cfg(target_arch = "x86_64")]
        if shani::available() {
            // SAFETY: the CPU has the instructions `shani` is compiled for.
            unsafe { shani::first_words(ranges.len(), message, out) };
            return;
        }
        for (k, word) in out.iter_mut().enumerate() {
            *word = plain(message(k));
        }
    }
}

/// A message: its `len` bytes, and a block more after them to read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Message<'a> {
    bytes: &'a [u8],
    len: usize,
}

impl Message<'_> {
    /// Blocks of 64 bytes once padded: the message, a 0x80 byte and its
    /// length in bits as 8 bytes.
    fn blocks(&self) -> usize {
        (self.len + 9).div_ceil(64)
    }

    /// Block `k` of the padded message, as it is hashed.
    fn block(&self, k: usize) -> [u8; 64] {
        let at = 64 * k;
        let mut block = [0u8; 64];
        if at + 64 <= self.len {
            block.copy_from_slice(&self.bytes[at..at + 64]);
            return block;
        }
        if at <= self.len {
            let rem = self.len - at;
            block[..rem].copy_from_slice(&self.bytes[at..self.len]);
            block[rem] = 0x80;
            if rem > 55 {
                return block;
            }
        }
        block[56..].copy_from_slice(&(self.len as u64 * 8).to_be_bytes());
        block
    }
}

const H0: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

/// The first word of SHA-1 of one message, one block at a time through the
/// `sha1` crate.
fn plain(message: Message<'_>) -> u32 {
    let mut state = H0;
    for k in 0..message.blocks() {
        compress(&mut state, &[message.block(k)]);
    }
    state[0]
}

#[cfg(target_arch = "x86_64")]
mod shani {
    use super::{Message, H0};
    use std::arch::x86_64::*;

    /// Messages hashed side by side. Measured on AMD Zen 5 (a line's HASH
    /// and ANCHOR, ns per line): one digest at a time 153; in 2 lanes 79,
    /// 3: 74, 4: 78, 5: 78, 6: 82, 8: 84. The SHA unit is full from three
    /// lanes on; four leave room for cores whose SHA instructions take
    /// longer to come back, and more only spill registers.
    const LANES: usize = 4;

    pub(super) fn available() -> bool {
        is_x86_feature_detected!("sha")
            && is_x86_feature_detected!("sse2")
            && is_x86_feature_detected!("ssse3")
            && is_x86_feature_detected!("sse4.1")
    }

    /// A message in a lane: its index, and where its next block starts.
    #[derive(Clone, Copy)]
    struct Lane<'a> {
        index: usize,
        message: Message<'a>,
        at: usize,
    }

    /// `first_words` in lanes, of the `count` messages `message` gives.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn first_words<'a>(
        count: usize,
        message: impl Fn(usize) -> Message<'a>,
        out: &mut [u32],
    ) {
        let mut states = [H0; LANES];
        let mut lanes: [Option<Lane<'_>>; LANES] = [None; LANES];
        let mut next = 0;
        let take = |next: &mut usize| {
            let lane = (*next < count).then(|| Lane {
                index: *next,
                message: message(*next),
                at: 0,
            });
            *next += 1;
            lane
        };
        for lane in lanes.iter_mut() {
            *lane = take(&mut next);
        }
        let zero = _mm_setzero_si128();
        let mut blocks = [[zero; 4]; LANES];
        let mut last = [false; LANES];
        while lanes.iter().any(Option::is_some) {
            for l in 0..LANES {
                if let Some(lane) = &mut lanes[l] {
                    // SAFETY: `at` is within the message, which has a block
                    // of readable bytes after it.
                    (blocks[l], last[l]) = unsafe { block(lane.message, lane.at) };
                    lane.at += 64;
                }
            }
            compress_lanes(&mut states, &blocks);
            for l in 0..LANES {
                match lanes[l] {
                    Some(lane) if last[l] => {
                        out[lane.index] = states[l][0];
                        states[l] = H0;
                        lanes[l] = take(&mut next);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The block of `message` that starts at byte `at` of its padded form,
    /// as four unaligned loads, and whether it is the last one. A partial
    /// block is read whole and cut in registers: bytes past the message are
    /// cleared, the 0x80 byte and the length are put in.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    #[inline]
    unsafe fn block(message: Message<'_>, at: usize) -> ([__m128i; 4], bool) {
        let len = message.len;
        let p: *const __m128i = message.bytes.as_ptr().cast();
        if at + 64 <= len {
            // SAFETY: bytes `at..at + 64` are the message's.
            return unsafe {
                let p = p.byte_add(at);
                (
                    [
                        _mm_loadu_si128(p),
                        _mm_loadu_si128(p.add(1)),
                        _mm_loadu_si128(p.add(2)),
                        _mm_loadu_si128(p.add(3)),
                    ],
                    false,
                )
            };
        }
        // Bytes past the message (`rem` and more) are cleared; the one at
        // `rem` becomes 0x80. A block that starts past the message's end
        // (`rem` negative: its 0x80 byte fell in the block before) keeps
        // nothing but the length.
        let rem = len as isize - at as isize;
        let r = _mm_set1_epi8(rem.max(-1) as i8);
        let mark = _mm_set1_epi8(0x80u8 as i8);
        let mut words = [_mm_setzero_si128(); 4];
        for (j, word) in words.iter_mut().enumerate() {
            let index = _mm_add_epi8(
                _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                _mm_set1_epi8(16 * j as i8),
            );
            let v = if rem > 0 {
                // SAFETY: the block is within the message and the block of
                // readable bytes after it, since `at < len`.
                unsafe { _mm_loadu_si128(p.byte_add(at).add(j)) }
            } else {
                _mm_setzero_si128()
            };
            let kept = _mm_and_si128(v, _mm_cmpgt_epi8(r, index));
            *word = _mm_or_si128(kept, _mm_and_si128(_mm_cmpeq_epi8(r, index), mark));
        }
        if rem > 55 {
            return (words, false);
        }
        let bits = (len as u64 * 8).swap_bytes() as i64;
        words[3] = _mm_insert_epi64(words[3], bits, 1);
        (words, true)
    }

    /// One block of each lane's message, the lanes' rounds interleaved: the
    /// SHA instructions of one lane wait on their previous results, those of
    /// the others fill the wait. Lanes without a message compress whatever
    /// their block holds, and their state is not read.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    #[inline]
    unsafe fn compress_lanes(states: &mut [[u32; 5]; LANES], blocks: &[[__m128i; 4]; LANES]) {
        // Big-endian words: byte order reversed within the 128-bit lane.
        let flip = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0A0B_0C0D_0E0F);
        let zero = _mm_setzero_si128();
        let mut abcd = [zero; LANES];
        let mut e = [zero; LANES];
        let mut w = [[zero; 4]; LANES];
        for l in 0..LANES {
            // SAFETY: each state is 5 words; the load is unaligned.
            abcd[l] =
                _mm_shuffle_epi32(unsafe { _mm_loadu_si128(states[l].as_ptr().cast()) }, 0x1B);
            e[l] = _mm_set_epi32(states[l][4] as i32, 0, 0, 0);
            for k in 0..4 {
                w[l][k] = _mm_shuffle_epi8(blocks[l][k], flip);
            }
        }
        // `x` holds ABCD, `y` the E term of the next four rounds, swapping
        // roles every four rounds; `w[k % 4]` holds message words 4k..4k+4.
        let mut x = abcd;
        let mut y = [zero; LANES];
        for l in 0..LANES {
            y[l] = _mm_add_epi32(e[l], w[l][0]);
        }
        macro_rules! rounds {
            ($k:expr, $f:expr) => {
                for l in 0..LANES {
                    if $k > 0 {
                        y[l] = _mm_sha1nexte_epu32(y[l], w[l][$k % 4]);
                    }
                    let next = _mm_sha1rnds4_epu32(x[l], y[l], $f);
                    y[l] = x[l];
                    x[l] = next;
                }
            };
        }
        macro_rules! schedule {
            ($k:expr) => {
                for l in 0..LANES {
                    // Words 4k.. from words 4(k-4).., 4(k-3).., 4(k-2).., 4(k-1)..
                    let [a, b, c, d] = [
                        w[l][$k % 4],
                        w[l][($k + 1) % 4],
                        w[l][($k + 2) % 4],
                        w[l][($k + 3) % 4],
                    ];
                    w[l][$k % 4] =
                        _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(a, b), c), d);
                }
            };
        }
        rounds!(0, 0);
        rounds!(1, 0);
        rounds!(2, 0);
        rounds!(3, 0);
        schedule!(4);
        rounds!(4, 0);
        schedule!(5);
        rounds!(5, 1);
        schedule!(6);
        rounds!(6, 1);
        schedule!(7);
        rounds!(7, 1);
        schedule!(8);
        rounds!(8, 1);
        schedule!(9);
        rounds!(9, 1);
        schedule!(10);
        rounds!(10, 2);
        schedule!(11);
        rounds!(11, 2);
        schedule!(12);
        rounds!(12, 2);
        schedule!(13);
        rounds!(13, 2);
        schedule!(14);
        rounds!(14, 2);
        schedule!(15);
        rounds!(15, 3);
        schedule!(16);
        rounds!(16, 3);
        schedule!(17);
        rounds!(17, 3);
        schedule!(18);
        rounds!(18, 3);
        schedule!(19);
        rounds!(19, 3);
        for l in 0..LANES {
            abcd[l] = _mm_add_epi32(abcd[l], x[l]);
            e[l] = _mm_sha1nexte_epu32(y[l], e[l]);
            let out = _mm_shuffle_epi32(abcd[l], 0x1B);
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(states[l].as_mut_ptr().cast(), out) };
            states[l][4] = _mm_extract_epi32(e[l], 3) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use sha1::{Digest, Sha1};

    fn expected(bytes: &[u8]) -> u32 {
        let d = Sha1::digest(bytes);
        u32::from_be_bytes([d[0], d[1], d[2], d[3]])
    }

    /// Hashes `texts` pushed one after another, each in the lanes and in
    /// the plain path, and checks both against `Sha1::digest`.
    fn check(texts: &[Vec<u8>]) {
        let mut padded = Padded::default();
        let mut ranges = Vec::new();
        for t in texts {
            let at = padded.len();
            padded.push(t);
            ranges.push(at..padded.len());
        }
        let buffer = padded.finish();
        let mut lanes = vec![0; ranges.len()];
        buffer.first_words(&ranges, &mut lanes);
        for (k, t) in texts.iter().enumerate() {
            assert_eq!(lanes[k], expected(t), "lanes, length {}", t.len());
            let message = Message {
                bytes: &buffer.bytes[ranges[k].start..ranges[k].end + 64],
                len: t.len(),
            };
            assert_eq!(plain(message), expected(t), "plain, length {}", t.len());
        }
    }

    /// Lines of every length 0..200, and around the block boundaries.
    fn every_length() -> Vec<Vec<u8>> {
        let mut lines: Vec<Vec<u8>> = (0..200usize)
            .map(|n| (0..n).map(|i| b'a' + ((i * 7 + n) % 26) as u8).collect())
            .collect();
        for n in [55, 56, 57, 63, 64, 65, 119, 120, 128, 129, 1000] {
            lines.push(vec![0xC3; n]);
        }
        lines
    }

    #[test]
    fn the_lanes_and_the_plain_path_equal_sha1_for_every_length() {
        let lines = every_length();
        for take in [0, 1, 2, 3, 4, 5, 7, 9, lines.len()] {
            check(&lines[..take]);
        }
        let mut reversed = lines.clone();
        reversed.reverse();
        check(&reversed);
    }

    #[test]
    fn messages_overlapping_in_one_buffer_hash_as_their_own_bytes() {
        let text: Vec<u8> = (0..3000u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut padded = Padded::default();
        padded.push(&text);
        let buffer = padded.finish();
        let ranges: Vec<Range<usize>> = (0..400)
            .map(|k| (k * 7) % 2000..(k * 7) % 2000 + k % 190)
            .collect();
        let mut out = vec![0; ranges.len()];
        buffer.first_words(&ranges, &mut out);
        for (r, word) in ranges.iter().zip(&out) {
            assert_eq!(*word, expected(&text[r.clone()]), "{r:?}");
        }
    }

    proptest! {
        #[test]
        fn random_batches_hash_as_sha1_does(
            batch in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..40),
        ) {
            check(&batch);
        }
    }
}
