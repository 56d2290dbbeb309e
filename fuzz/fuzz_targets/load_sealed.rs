//! Arbitrary key sets opened as an encrypted store: values with a valid checksum for the kind
//! their key suggests, most of them sealed under the store's key (so the fuzzer reaches the
//! decoder through the seal), some under another key name or left plain, some truncated.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::envelope::{seal, Kind};
use memdag_core::{Cipher, Store};

fuzz_target!(|data: &[u8]| {
    const KEYS: [&str; 4] = [
        "head",
        "seg/0000000000000001/0",
        "seg/0000000000000001/1",
        "seg/0000000000000002/0",
    ];
    let cipher = Cipher::new(&[7u8; 32]).expect("32 bytes");
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut at = 0;
    while at + 2 <= data.len() {
        let (k, len) = (data[at], data[at + 1] as usize);
        at += 2;
        let value = &data[at..(at + len).min(data.len())];
        at += len;
        let key = KEYS[(k & 3) as usize];
        let kind = if key == "head" {
            Kind::Commit
        } else {
            Kind::SegmentPart
        };
        let plain = if k & 4 != 0 {
            seal(kind, value)
        } else {
            value.to_vec()
        };
        let stored = match (k >> 3) & 7 {
            // Sealed under another key name: must fail to open, naming the key.
            0 => cipher.seal(KEYS[((k >> 6) & 3) as usize], &plain),
            // Left plain in an encrypted store.
            1 => plain,
            // Truncated after sealing.
            2 => {
                let mut s = cipher.seal(key, &plain);
                s.truncate(s.len() / 2);
                s
            }
            _ => cipher.seal(key, &plain),
        };
        entries.push((key.to_string(), stored));
    }
    if let Ok(mut store) = Store::load_with_cipher(entries, Some(cipher)) {
        let _ = store.take_changes();
    }
});
