# A test worker for package pyworker that never connects back.
import time

time.sleep(3600)
