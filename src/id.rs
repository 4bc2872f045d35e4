//! Typed ids: every list the pipeline builds is indexed by an id of its own
//! kind, and lists of them are [`IdVec`]s, indexed by that kind only (a
//! [`BranchId`](crate::graph::BranchId) never reads the agents, an
//! [`EntryId`](crate::model::EntryId) never reads the nodes).
//!
//! An id is a position held in 32 bits, built only by checked construction
//! ([`Id::new`], `None` past the last one) or handed out by the list that
//! holds the item ([`IdVec::push`], [`IdVec::ids`]). "No such item" is
//! `Option<Id>`, never a sentinel value, and costs no space: an id is stored
//! as its position plus one in a `NonZeroU32`, whose zero is `None`.
//!
//! An id reaches `u32::MAX - 1`: a list longer than that cannot be built
//! ([`IdVec::push`] panics), and no project comes near. The longest lists
//! are a project's lines and nodes, and each line keeps a header of about
//! 500 bytes in memory ([`crate::model::Entry`]): four billion of them would
//! take some 2 TB, so memory runs out long before the ids do.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A typed position in an [`IdVec`].
pub trait Id: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// The id of position `index`; `None` past the last id (`u32::MAX - 1`).
    fn new(index: usize) -> Option<Self>;
    /// Its position.
    fn index(self) -> usize;
}

/// Defines an id type: `typed_id!(/// doc \n pub Name);` (its visibility,
/// that of its constructors, is the caller's).
macro_rules! typed_id {
    ($(#[$attr:meta])* $vis:vis $name:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis struct $name(std::num::NonZeroU32);

        impl $name {
            /// The id of the first item.
            #[allow(dead_code, reason = "every id type has it; some are only counted from")]
            $vis const FIRST: Self = Self(std::num::NonZeroU32::MIN);

            /// The id of position `index`; `None` past the last id.
            $vis fn new(index: usize) -> Option<Self> {
                <Self as $crate::id::Id>::new(index)
            }

            /// Its position.
            $vis fn index(self) -> usize {
                <Self as $crate::id::Id>::index(self)
            }
        }

        impl $crate::id::Id for $name {
            fn new(index: usize) -> Option<Self> {
                let stored = u32::try_from(index).ok()?.checked_add(1)?;
                std::num::NonZeroU32::new(stored).map(Self)
            }

            fn index(self) -> usize {
                // Lossless: a `u32` fits in `usize` on every target cctree builds for.
                (self.0.get() - 1) as usize
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.index())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_u32(self.0.get() - 1)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let index = <u32 as serde::Deserialize>::deserialize(d)?;
                usize::try_from(index)
                    .ok()
                    .and_then(Self::new)
                    .ok_or_else(|| serde::de::Error::custom(concat!("no ", stringify!($name), " at u32::MAX")))
            }
        }
    };
}
pub(crate) use typed_id;

/// A list indexed by one kind of id: `v[id]` for an `I`, never a bare number.
#[derive(Clone, PartialEq, Eq)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    pub const fn new() -> Self {
        IdVec { items: Vec::new(), id: PhantomData }
    }

    pub fn with_capacity(n: usize) -> Self {
        IdVec { items: Vec::with_capacity(n), id: PhantomData }
    }

    /// `len` clones of `value`: a table beside another list of `len` items.
    ///
    /// # Panics
    /// When `len` is more than the ids of `I` can number (see the module doc).
    pub fn filled(value: T, len: usize) -> Self
    where
        T: Clone,
    {
        Self::from_vec(vec![value; len])
    }

    /// The items of `items`, the first at id 0.
    ///
    /// # Panics
    /// When there are more than the ids of `I` can number (see the module doc).
    pub fn from_vec(items: Vec<T>) -> Self {
        if let Some(len) = items.len().checked_sub(1) {
            assert!(I::new(len).is_some(), "more items than 32-bit ids can number");
        }
        IdVec { items, id: PhantomData }
    }

    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional);
    }

    /// Appends `value` and returns its id.
    ///
    /// # Panics
    /// When the list already holds as many items as the ids of `I` can
    /// number (see the module doc).
    pub fn push(&mut self, value: T) -> I {
        let id = self.next_id();
        self.items.push(value);
        id
    }

    /// The id the next [`IdVec::push`] returns.
    ///
    /// # Panics
    /// When the list is full (see [`IdVec::push`]).
    pub fn next_id(&self) -> I {
        I::new(self.items.len()).expect("more items than 32-bit ids can number")
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.items.get_mut(id.index())
    }

    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        // Every position of the list has an id: `from_vec` and `push` check it.
        (0..self.items.len()).map(|i| I::new(i).expect("an IdVec's positions have ids"))
    }

    /// Every item with its id, in parallel (rayon).
    pub fn par_iter_enumerated(&self) -> impl rayon::iter::IndexedParallelIterator<Item = (I, &T)>
    where
        I: Send + Sync,
        T: Sync,
    {
        use rayon::prelude::*;
        self.items.par_iter().enumerate().map(|(i, item)| (I::new(i).expect("an IdVec's positions have ids"), item))
    }

    /// Every item with its id, in order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator {
        self.ids().zip(&self.items)
    }

    /// The items, without their ids.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }

    /// The items, without their ids, to change in place.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items
    }

    /// The items, without their ids.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;

    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    /// # Panics
    /// See [`IdVec::from_vec`].
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        Self::from_vec(iter.into_iter().collect())
    }
}

impl<I: Id, T> Extend<T> for IdVec<I, T> {
    /// # Panics
    /// See [`IdVec::push`].
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<I, T> IntoIterator for IdVec<I, T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, I, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut IdVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    typed_id!(
        /// An id for the tests.
        pub(super) TestId
    );

    #[test]
    fn ids_are_checked_and_none_costs_nothing() {
        assert_eq!(TestId::new(0), Some(TestId::FIRST));
        assert_eq!(TestId::FIRST.index(), 0);
        assert_eq!(TestId::new(u32::MAX as usize - 1).map(TestId::index), Some(u32::MAX as usize - 1));
        assert_eq!(TestId::new(u32::MAX as usize), None);
        assert_eq!(TestId::new(usize::MAX), None);
        assert_eq!(std::mem::size_of::<Option<TestId>>(), 4);
        assert!(TestId::new(1) < TestId::new(2));
        assert_eq!(format!("{:?}", TestId::new(7).unwrap()), "TestId(7)");
    }

    #[test]
    fn an_idvec_is_indexed_by_its_ids() {
        let mut v: IdVec<TestId, &str> = IdVec::new();
        let a = v.push("a");
        let b = v.push("b");
        assert_eq!((v[a], v[b]), ("a", "b"));
        v[b] = "B";
        assert_eq!(v.iter_enumerated().map(|(i, s)| (i.index(), *s)).collect::<Vec<_>>(), [(0, "a"), (1, "B")]);
        assert_eq!(v.ids().rev().collect::<Vec<_>>(), [b, a]);
        assert_eq!(v.get(TestId::new(2).unwrap()), None);
    }

    #[test]
    fn ids_serialize_as_their_position() {
        let id = TestId::new(41).unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "41");
        assert_eq!(serde_json::from_str::<TestId>(&json).unwrap(), id);
        assert!(serde_json::from_str::<TestId>(&u32::MAX.to_string()).is_err());
    }
}
