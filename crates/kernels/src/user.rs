//! [`UserKernel`]: a kernel of the caller's own type, usable by every kernel model.

use std::fmt;
use std::sync::Arc;

use margin_core::{Records, Result, RowView};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::kernel::{DotForm, Kernel};

/// A kernel of the caller's own type, shared: `Svc::params().kernel(UserKernel::new(MyKernel))`
/// trains, predicts and cross-validates as any kernel of this crate does (pair by pair, or
/// through GEMM when its [`Kernel::dot_form`] says how).
///
/// It has no file form: saving a model that holds one is refused with
/// [`Error::ModelFile`](margin_core::Error::ModelFile) naming the kernel (margin cannot know how
/// to write, or trust when reading, code it did not define). Two user kernels are equal when they
/// share one value (`Arc::ptr_eq`), so a model and its clones compare equal.
#[derive(Clone)]
pub struct UserKernel(Arc<dyn Kernel>);

impl UserKernel {
    /// Wraps `kernel`.
    pub fn new(kernel: impl Kernel + 'static) -> Self {
        Self(Arc::new(kernel))
    }
}

impl fmt::Debug for UserKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UserKernel({})", self.0.name())
    }
}

impl PartialEq for UserKernel {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Kernel for UserKernel {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        self.0.eval(x, z)
    }
    fn name(&self) -> String {
        self.0.name()
    }
    fn dot_form(&self) -> Option<DotForm> {
        self.0.dot_form()
    }
    fn is_psd(&self) -> bool {
        self.0.is_psd()
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        self.0.check(records)
    }
}

impl Serialize for UserKernel {
    fn serialize<S: Serializer>(&self, _: S) -> std::result::Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(format!(
            "the kernel {} is the caller's own type, which margin cannot write to a file: keep the model in memory, or train with a kernel of margin_kernels (sums, products and multiples of them included)",
            self.0.name()
        )))
    }
}

impl<'de> Deserialize<'de> for UserKernel {
    fn deserialize<D: Deserializer<'de>>(_: D) -> std::result::Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "a user-defined kernel cannot be read from a file",
        ))
    }
}
