/* The fallback entry point of the accelkit-fuzz executable; see replay.c. */
