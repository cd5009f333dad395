module tecaj

go 1.19
