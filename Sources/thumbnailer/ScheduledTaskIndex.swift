/// Which task of a batch job this process is, as its scheduler says: a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX`, else a Slurm array job's `SLURM_ARRAY_TASK_ID`. Both count from 0 (a
/// Slurm array must be numbered from 0, `--array=0-3`); the task's own number is used, never its
/// place in the array, so one task resubmitted alone (`--array=2`) warms the same slice.
struct ScheduledTaskIndex {
    /// The variable read, for messages.
    let source: String
    /// What it held, as written.
    let text: String?
    /// The index; `nil` when unset or not a number.
    var value: Int? { text.flatMap { Int($0) } }

    init(environment: (String) -> String?) {
        if let kubernetes = environment("JOB_COMPLETION_INDEX") {
            source = "JOB_COMPLETION_INDEX"
            text = kubernetes
        } else if let slurm = environment("SLURM_ARRAY_TASK_ID") {
            source = "SLURM_ARRAY_TASK_ID"
            text = slurm
        } else {
            source = "JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID"
            text = nil
        }
    }
}
