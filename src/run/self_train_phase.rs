//! The self-training phase of a run (`self_train.minutes_in_run`): after
//! the last iteration, the run's learned evaluation trains itself with
//! [`SelfTrainer`](super::self_train::SelfTrainer) in the run's
//! `self-train` folder, and the newest checkpoint takes the result.

use super::self_train::{
    is_self_train_folder, newest_eval, newest_round, round_eval, SelfTrainFolder, SelfTrainLimits,
    SelfTrainProgress, SelfTrainer,
};
use crate::learned::EvalFile;
use crate::util::derive_seed;

/// The folder of a run's self-training.
pub const RUN_SELF_TRAIN_DIR: &str = "self-train";

impl<P: super::RunGame> super::Run<P> {
    /// After the run's last iteration (with an expert of its own, see
    /// [`self_train_first`](Self::self_train_first)): its learned evaluation trains
    /// itself for `self_train.minutes_in_run` minutes in the run's
    /// `self-train` folder, starting from the newest checkpoint's learned
    /// evaluation (new random weights where none has one); a resumed run continues the folder until its minutes
    /// (the rounds' playing and training seconds) are spent. Each round is
    /// an [`Event::SelfTrainRound`](super::Event::SelfTrainRound).
    pub(super) fn self_train_phase(
        &mut self,
        observer: &mut super::Observer<'_>,
    ) -> Result<(), super::RunError> {
        let trained = if self.cfg.expert.trains_own() {
            // Its minutes were spent before the first iteration, and the
            // round the iterations learned from is the one handed on.
            let dir = self.dir.root.join(RUN_SELF_TRAIN_DIR);
            newest_round(&dir).map(|round| (dir, round))
        } else {
            self.self_train_in_folder(observer)?
        };
        match trained {
            Some((dir, round)) => self.hand_on_self_trained(&dir, round),
            None => Ok(()),
        }
    }

    /// Before the run's first iteration, when its expert is its own
    /// self-trained evaluation (`expert.eval = "self-train"`): the
    /// self-training runs first (from new random weights, as no checkpoint
    /// has a learned evaluation yet), and its newest round plays the
    /// expert's games of every iteration. A run resumed after its first
    /// iteration reads the folder's newest round, the same; after the last iteration
    /// [`self_train_phase`](Self::self_train_phase) then only hands it on.
    pub(super) fn self_train_first(
        &mut self,
        observer: &mut super::Observer<'_>,
    ) -> Result<(), super::RunError> {
        if !self.cfg.expert.trains_own() {
            return Ok(());
        }
        let dir = self.dir.root.join(RUN_SELF_TRAIN_DIR);
        // A run past its first iteration trained its expert before it:
        // the folder's newest round is the expert it had.
        let trains = self.state.iteration == 0 || !is_self_train_folder(&dir);
        if trains && self.self_train_in_folder(observer)?.is_none() {
            return Ok(());
        }
        let file = newest_eval(&dir).map_err(super::RunError::SelfTrain)?;
        self.expert = Some(std::sync::Arc::new(crate::learned::LearnedEval::new(file.float)));
        Ok(())
    }

    /// The run's `self-train` folder trained until its minutes are spent:
    /// the folder and its newest round (None where the run self-trains
    /// not at all).
    fn self_train_in_folder(
        &mut self,
        observer: &mut super::Observer<'_>,
    ) -> Result<Option<(std::path::PathBuf, u32)>, super::RunError> {
        let minutes = self.cfg.self_train.minutes_in_run;
        if minutes <= 0.0 || self.stop.requested() || !crate::learned::features::reads::<P>() {
            return Ok(None);
        }
        let dir = self.dir.root.join(RUN_SELF_TRAIN_DIR);
        let folder = SelfTrainFolder {
            game: P::ID.name().to_string(),
            variant: self.cfg.variant.clone(),
            seed: derive_seed(self.cfg.seed, "self-train", 0),
            settings: self.cfg.self_train.clone(),
        };
        let opened = if is_self_train_folder(&dir) {
            SelfTrainer::<P>::open_at(&dir, folder)
        } else {
            let start = super::learned_eval::checkpoint_eval_file(&self.dir.root).ok();
            SelfTrainer::<P>::create(&dir, folder, start)
        };
        let mut trainer = opened.map_err(super::RunError::SelfTrain)?;
        let spent: f64 = trainer.rows.iter().map(|r| r.play_s + r.train_s).sum();
        let left = minutes - spent / 60.0;
        if left > 0.0 {
            self.self_train_rounds(&mut trainer, left, observer)?;
        }
        Ok(Some((dir, trainer.round)))
    }

    /// Self-training rounds for `minutes` more, each reported.
    fn self_train_rounds(
        &mut self,
        trainer: &mut SelfTrainer<P>,
        minutes: f64,
        observer: &mut super::Observer<'_>,
    ) -> Result<(), super::RunError> {
        let limits = SelfTrainLimits {
            rounds: None,
            minutes: Some(minutes),
        };
        let iteration = self.state.iteration;
        let games = self.cfg.self_train.games as u64;
        let stop = self.stop.clone();
        let mut on_progress = |p: SelfTrainProgress| match p {
            SelfTrainProgress::Round(_) => observer(&super::Event::Phase {
                iteration,
                phase: super::Phase::SelfTrain,
                total: games,
            }),
            SelfTrainProgress::Games(done, _) => observer(&super::Event::Progress {
                iteration,
                phase: super::Phase::SelfTrain,
                done: done as u64,
            }),
            SelfTrainProgress::Epoch(..) => {}
            SelfTrainProgress::Done(row) => observer(&super::Event::SelfTrainRound { row: Box::new(row) }),
        };
        let pool = self.pool.clone();
        pool.install(|| trainer.run(limits, &stop, &mut on_progress))
            .map(|_| ())
            .map_err(super::RunError::SelfTrain)
    }

    /// The newest checkpoint's learned evaluation becomes the folder's
    /// round `round`, its newest (the strongest the run has; the distilled
    /// one it started from stays as round 0), so `alphabeta:eval=RUN`,
    /// `damone export --latest` and `damone rate` play it.
    fn hand_on_self_trained(&self, dir: &std::path::Path, round: u32) -> Result<(), super::RunError> {
        if round == 0 {
            return Ok(());
        }
        let Some(&newest) = self.dir.checkpoints().last() else {
            return Ok(());
        };
        let file = EvalFile::read(&round_eval(dir, round)).map_err(super::RunError::SelfTrain)?;
        let path = self.dir.iter_dir(newest).join(crate::learned::EVAL_FILE_NAME);
        file.write(&path).map_err(|e| super::RunError::Write(path, e))
    }
}
