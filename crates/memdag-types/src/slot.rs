//! The slot: the dense in-memory handle of a record. The store hands one to every record it
//! holds and the indexes (memdag-core's `index`) key their entries by it, so that none of
//! them needs the store to name a record. A slot is stable for the life of a store instance,
//! never persisted, and never reused while the instance lives (a removed record's slot stays
//! empty).

/// Dense in-memory handle of a record, stable for the life of a store instance (not persisted).
pub type Slot = u32;
