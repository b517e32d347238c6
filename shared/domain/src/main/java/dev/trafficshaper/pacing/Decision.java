package dev.trafficshaper.pacing;

/** What the pacer says about the queue heads it was shown. */
public sealed interface Decision {

    /** Send this candidate now; report its outcome through the admission. */
    record Admit(Candidate candidate, Admission admission) implements Decision {
    }

    /** Nothing may go yet; ask again at this time (epoch millis). */
    record WaitUntil(long atMillis) implements Decision {
    }

    /** No candidates were offered. */
    record Idle() implements Decision {
    }
}
