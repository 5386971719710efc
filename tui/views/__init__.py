"""Models of what the screen and the reports show: the timeline's lanes and bins, the
tables' SQL pages, the Nsight Compute session, and the summary as text. Nothing here
draws in the app; widgets draw what these return."""
