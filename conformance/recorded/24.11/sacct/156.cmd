run
sacct -X --clusters=nosuch
