package dev.trafficshaper.lifecycle;

/** The drainer's time: read it, and wait for it. Tests pass a fake that advances instantly. */
public interface DrainClock {

    long nowMillis();

    /** Returns at {@code atMillis} or later; at once if that is not in the future. */
    void sleepUntil(long atMillis) throws InterruptedException;

    static DrainClock system() {
        return new DrainClock() {
            @Override
            public long nowMillis() {
                return System.currentTimeMillis();
            }

            @Override
            public void sleepUntil(long atMillis) throws InterruptedException {
                long wait = atMillis - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
            }
        };
    }
}
