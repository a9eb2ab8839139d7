//! Spam or ham? A multinomial naive Bayes classifier on word counts.
//!
//! A tiny corpus of short messages is turned into a sparse bag-of-words matrix by a simple
//! count vectorizer (lowercase, split on anything that is not a letter or digit), then
//! `MultinomialNB` learns how often each word appears in spam and in ham.
//!
//! ```text
//! cargo run -p margin-linear --example spam_naive_bayes
//! ```

use std::collections::BTreeMap;

use margin_core::{Classes, CsrMatrix, Dataset, Fit, Predict, PredictProba, Targets};
use margin_linear::naive_bayes::MultinomialNB;

const TRAINING: [(&str, &str); 20] = [
    (
        "spam",
        "WIN a FREE prize now! Click here to claim your prize",
    ),
    ("spam", "Congratulations, you won a free cruise. Call now!"),
    ("spam", "Cheap meds online, no prescription, buy now"),
    ("spam", "You have been selected for a cash prize of $1000"),
    ("spam", "Limited offer: free gift card, click the link"),
    (
        "spam",
        "URGENT: your account is locked, verify your password here",
    ),
    ("spam", "Earn money from home, free trial, click now"),
    ("spam", "Claim your free iPhone today, winners selected"),
    ("spam", "Lowest price guaranteed, buy cheap watches now"),
    ("spam", "Act now! Free entry to win cash every week"),
    ("ham", "Are we still meeting for lunch tomorrow?"),
    ("ham", "Can you send me the report before the meeting"),
    ("ham", "Happy birthday! Hope you have a great day"),
    ("ham", "I will call you when I get home tonight"),
    ("ham", "The train is late, see you at the station at 7"),
    ("ham", "Thanks for the notes from class, they helped a lot"),
    ("ham", "Do you want to watch a movie this weekend?"),
    ("ham", "Mum says dinner is at 6, bring the salad"),
    ("ham", "Your package was left with the neighbour"),
    ("ham", "Let's review the project plan on Monday morning"),
];

const NEW: [&str; 5] = [
    "Click now to claim your free cash prize",
    "See you at lunch on Monday",
    "Free movie tickets for the weekend, click here",
    "Can you call me about the project report?",
    "Buy cheap watches online",
];

/// Lowercase words: maximal runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// A vocabulary learned from training texts: word → column (sorted, so columns are stable).
struct CountVectorizer {
    vocabulary: BTreeMap<String, u32>,
}

impl CountVectorizer {
    fn fit(texts: &[&str]) -> Self {
        let mut vocabulary: BTreeMap<String, u32> = texts
            .iter()
            .flat_map(|t| words(t))
            .map(|w| (w, 0))
            .collect();
        for (column, index) in vocabulary.values_mut().enumerate() {
            *index = column as u32;
        }
        Self { vocabulary }
    }

    /// One sparse row of word counts per text; words outside the vocabulary are ignored.
    fn transform(&self, texts: &[&str]) -> margin_core::Result<CsrMatrix> {
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for text in texts {
            let mut counts: BTreeMap<u32, f64> = BTreeMap::new();
            for w in words(text) {
                if let Some(&j) = self.vocabulary.get(&w) {
                    *counts.entry(j).or_default() += 1.0;
                }
            }
            indices.extend(counts.keys());
            values.extend(counts.values());
            indptr.push(indices.len());
        }
        CsrMatrix::new(indptr, indices, values, self.vocabulary.len())
    }
}

fn main() -> margin_core::Result<()> {
    let texts: Vec<&str> = TRAINING.iter().map(|(_, t)| *t).collect();
    let labels: Vec<&str> = TRAINING.iter().map(|(l, _)| *l).collect();
    let vectorizer = CountVectorizer::fit(&texts);
    let train = Dataset::new(
        vectorizer.transform(&texts)?,
        Targets::Classes(Classes::from_text(&labels)),
    )?;
    println!(
        "{} messages, {} distinct words",
        train.n_samples(),
        train.n_features()
    );

    let model = MultinomialNB::params().alpha(1.0).fit(&train)?;
    let x = vectorizer.transform(&NEW)?;
    let predicted = model.predict(&x)?;
    let proba = model.predict_proba(&x)?;
    // Columns follow the sorted labels: "ham", then "spam".
    let spam = model
        .classes()
        .iter()
        .position(|l| *l == "spam")
        .unwrap_or(1);
    for ((text, label), p) in NEW.iter().zip(&predicted).zip(proba.rows()) {
        println!("{:<4}  P(spam) = {:.3}  {text}", label.to_string(), p[spam]);
    }
    Ok(())
}
