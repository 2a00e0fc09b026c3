//! Task, context and push-config ids: UUID v4 text from a keyed pseudo-random function.
//!
//! The core reads no clock and no OS randomness, so the host gives a 128-bit key (the
//! transport reads it from the OS). Each id is SipHash-2-4 under that key of a counter: a
//! pseudo-random function, so seeing any number of ids tells nothing about the next one
//! without the key (a counter-mode generator like SplitMix64 would give its whole state away
//! with one id). Tests give a fixed key and get the same ids every run.

use alloc::format;
use alloc::string::String;

/// The id generator.
#[derive(Clone)]
pub(crate) struct IdGen {
    k0: u64,
    k1: u64,
    counter: u64,
}

impl core::fmt::Debug for IdGen {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The key stays out of logs.
        f.debug_struct("IdGen").field("counter", &self.counter).finish_non_exhaustive()
    }
}

impl IdGen {
    pub(crate) fn new(key: u128) -> Self {
        IdGen { k0: key as u64, k1: (key >> 64) as u64, counter: 0 }
    }

    fn next_u64(&mut self) -> u64 {
        use core::hash::Hasher as _;
        self.counter = self.counter.wrapping_add(1);
        // SipHash-2-4: `core` keeps it (deprecated only in favour of std's unspecified
        // DefaultHasher, which is not keyed and not in `core`).
        #[allow(deprecated)]
        let mut h = core::hash::SipHasher::new_with_keys(self.k0, self.k1);
        h.write_u64(self.counter);
        h.finish()
    }

    /// A number drawn once per key, independent of the ids (it does not advance the
    /// counter): the epoch of stream event ids.
    pub(crate) fn epoch(&self) -> u32 {
        use core::hash::Hasher as _;
        #[allow(deprecated)]
        let mut h = core::hash::SipHasher::new_with_keys(self.k0, self.k1);
        // A domain no id counter reaches (ids count up from 1).
        h.write_u64(u64::MAX);
        h.write(b"event epoch");
        (h.finish() >> 32) as u32
    }

    /// A UUID v4 text.
    pub(crate) fn uuid(&mut self) -> String {
        let hi = (self.next_u64() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
        let lo = (self.next_u64() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
        format!("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48, lo & 0xFFFF_FFFF_FFFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_v4_text_distinct_and_depend_on_the_key() {
        let mut g = IdGen::new(7);
        let a = g.uuid();
        let b = g.uuid();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        assert!(matches!(a.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
        // The same key gives the same ids; another key, other ids.
        assert_eq!(IdGen::new(7).uuid(), a);
        assert_ne!(IdGen::new(8).uuid(), a);
        assert_ne!(IdGen::new(7 | (1 << 100)).uuid(), a, "the high half of the key counts too");
    }
}
